import { isLocal, servesHost } from "./authenticate";
import { SIGN_IN_PATH } from "./sign-in-path";

/** What the proxy does with a request for a page. */
export type PageAccess = { verdict: "serve" } | { verdict: "sign-in" } | { verdict: "refuse"; status: 421; message: string };

/** The request header the proxy gives a page: the path (and query) it was asked for. */
export const PAGE_PATH_HEADER = "x-console-page";

/**
 * Whether a page may be served for a request, decided before any page runs: the Host must be one
 * the console serves (against DNS rebinding, 421 otherwise); the local operator (a loopback console
 * reached by a local name) needs no sign-in; anyone else without a session cookie is sent to the
 * sign-in page. A cookie is only looked at here: each page checks the session itself (lib/api/pages.ts),
 * so a signed-out or revoked session shows the sign-in page there.
 */
export function pageAccess(
  path: string,
  hostHeader: string | null,
  hasSessionCookie: boolean,
  policy: { bindHost: string; allowedHosts: readonly string[] },
): PageAccess {
  const { served, host, local } = servesHost(hostHeader, policy.allowedHosts);
  if (!served)
    return {
      verdict: "refuse",
      status: 421,
      message: `This console does not serve the host "${host || "(none)"}". Add it to ALLOWED_HOSTS.`,
    };
  if (path === SIGN_IN_PATH || isLocal(policy, local) || hasSessionCookie) return { verdict: "serve" };
  return { verdict: "sign-in" };
}
