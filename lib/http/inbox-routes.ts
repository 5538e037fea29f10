import type { Services } from "../services";
import { approvalsApi } from "./approvals-api";

const inboxes = new WeakMap<Services, ReturnType<typeof approvalsApi>>();

/** The approvals inbox API over the process's services (one per services object). */
export function inbox(services: Services): ReturnType<typeof approvalsApi> {
  let api = inboxes.get(services);
  if (!api) {
    api = approvalsApi(services);
    inboxes.set(services, api);
  }
  return api;
}
