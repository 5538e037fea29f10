import { aguiEndpoint } from "../integrations/agui/endpoint";
import { historyHandlers } from "../integrations/agui/history";
import type { Services } from "../services";

const endpoints = new WeakMap<Services, ReturnType<typeof aguiEndpoint>>();
const histories = new WeakMap<Services, ReturnType<typeof historyHandlers>>();

/** The AG-UI endpoint over the process's services (one per services object). */
export function agui(services: Services): ReturnType<typeof aguiEndpoint> {
  let endpoint = endpoints.get(services);
  if (!endpoint) {
    endpoint = aguiEndpoint({
      bridge: services.bridge,
      catalog: services.agents,
      access: services.access,
      maxBodyBytes: services.config.AGUI_MAX_BODY_BYTES,
      logger: services.logger,
    });
    endpoints.set(services, endpoint);
  }
  return endpoint;
}

/** Thread and run history handlers over the process's services. */
export function history(services: Services): ReturnType<typeof historyHandlers> {
  let handlers = histories.get(services);
  if (!handlers) {
    handlers = historyHandlers({ runs: services.runs, approvals: services.approvals, registry: services.registry, access: services.access });
    histories.set(services, handlers);
  }
  return handlers;
}
