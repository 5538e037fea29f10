// Where people sign in and where they go back to: plain functions of a path, shared by the proxy,
// the pages on the server and the pages' own API calls in the browser.

/** The API that signs in (POST) and out (DELETE): its 401 is a wrong token, not a session that ended. */
export const SESSION_PATH = "/api/session";

/** The page where people sign in; served to anyone whose Host is served. */
export const SIGN_IN_PATH = "/sign-in";

/**
 * Where the sign-in page sends someone once signed in: `next` when it is a path of this console,
 * else "/". Never another site (`//host`, `/\\host` or a URL): an open redirect would lend it our name.
 */
export function signInTarget(next: unknown): string {
  return typeof next === "string" && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

/** The sign-in page's address, returning to `path` (when it is one of the console's) once signed in. */
export function signInPath(path: string | null | undefined): string {
  const next = signInTarget(path);
  return next === "/" ? SIGN_IN_PATH : `${SIGN_IN_PATH}?next=${encodeURIComponent(next)}`;
}
