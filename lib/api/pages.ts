import { authenticate, type Principal, type RequestHead } from "../auth";
import { isDomainError } from "../errors";
import type { Services } from "../services";
import type { SessionView } from "./contracts";

/**
 * Who is looking at a page: the local operator, or whoever the session cookie stands for; undefined
 * when nobody is signed in (the page then sends them to sign in). Pages are read with GET, so the
 * Origin rule for changes does not apply; a page's own requests meet it when they change something.
 */
export async function pageCaller(services: Pick<Services, "access">, head: RequestHead): Promise<Principal | undefined> {
  try {
    return await authenticate(head, services.access);
  } catch (error) {
    if (isDomainError(error)) return undefined;
    throw error;
  }
}

/** What a page's components get to know of its user. */
export function sessionView(principal: Principal): SessionView {
  return { id: principal.id, role: principal.role, scopes: [...principal.scopes] };
}
