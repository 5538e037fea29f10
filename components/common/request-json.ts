import { SESSION_PATH, signInPath } from "@/lib/api/contracts";

/** A 4xx or 5xx answer of the console's API, with its `{ error: { code, message, issues } }` body. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

/**
 * Call the console's API and return its JSON. Throws ApiError for an error answer (with the body's
 * message), or a TypeError when the server cannot be reached.
 */
export async function requestJson<T>(url: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    signal: init.signal,
    headers: init.body === undefined ? undefined : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let value: unknown;
  try {
    value = text ? JSON.parse(text) : undefined;
  } catch {
    value = undefined;
  }
  if (response.status === 401 && url !== SESSION_PATH) leaveForSignIn();
  if (!response.ok) {
    const error = (value as { error?: { code?: string; message?: string; issues?: Array<{ path: string; message: string }> } } | undefined)
      ?.error;
    throw new ApiError(
      response.status,
      error?.code ?? "http_error",
      error?.message ?? `The server answered ${response.status}`,
      error?.issues ?? [],
    );
  }
  return value as T;
}

/**
 * The console refused a page's own request as unauthenticated: the session it was signed in with
 * has ended (expired, signed out elsewhere, its token revoked). The page goes to the sign-in page,
 * which brings the reader back here; the request still fails as usual meanwhile.
 */
function leaveForSignIn(): void {
  if (typeof window === "undefined") return;
  window.location.assign(signInPath(window.location.pathname + window.location.search));
}

/** A message for any error a request can end with. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return "The console did not answer; is it still running?";
  return error instanceof Error ? error.message : String(error);
}

/** errorMessage followed by the issues the console listed, if any: "The body is invalid: name is required". */
export function errorWithIssues(error: unknown): string {
  const issues = error instanceof ApiError ? error.issues.map((issue) => issue.message) : [];
  return [errorMessage(error), ...issues].join(": ");
}
