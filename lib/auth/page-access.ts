import { isLoopback, servesHost } from "./authenticate";

export type PageAccess = { ok: true } | { ok: false; status: 403 | 421; message: string };

/**
 * Whether the console's pages may be served for a request with this Host header. Pages have no
 * sign-in yet, so they are for the local operator only: the console must listen on loopback and
 * the Host must be a local name (or one in ALLOWED_HOSTS), which also defeats DNS rebinding.
 * The HTTP API authenticates each request itself (bearer tokens).
 */
export function pageAccess(hostHeader: string | null, policy: { bindHost: string; allowedHosts: readonly string[] }): PageAccess {
  const { served, host } = servesHost(hostHeader, policy.allowedHosts);
  if (!served)
    return { ok: false, status: 421, message: `This console does not serve the host "${host || "(none)"}". Add it to ALLOWED_HOSTS.` };
  if (!isLoopback(policy.bindHost))
    return {
      ok: false,
      status: 403,
      message: `The console's pages are served only when it listens on loopback (HOST=${policy.bindHost}). Use the HTTP API with a bearer token, or listen on 127.0.0.1 and reach it through an SSH tunnel.`,
    };
  return { ok: true };
}
