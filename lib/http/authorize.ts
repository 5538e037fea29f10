import { authenticate, requireScope, type AccessPolicy } from "../auth/authenticate";
import type { Principal } from "../auth/principal";
import { errorResponse } from "./respond";

/** Who calls, when they may use `scope`; otherwise the 401, 403 or 421 answer to send. */
export function authorize(request: Request, access: AccessPolicy, scope: string): { ok: true; principal: Principal } | { ok: false; response: Response } {
  const caller = authenticate(request, access);
  const allowed = caller.ok ? requireScope(caller.principal, scope) : caller;
  if (allowed.ok) return allowed;
  return { ok: false, response: errorResponse(allowed.status, allowed.code, allowed.message) };
}
