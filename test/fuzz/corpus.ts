/**
 * Requests the fuzz found answered wrongly, cut down to what still shows the fault. Each is
 * replayed on every run (test/fuzz/corpus.test.ts), whatever the seed, so a fault once found
 * stays found. Add an entry for every new finding; keep the note saying what went wrong.
 */
export interface CorpusEntry {
  /** "METHOD /path" as in ENDPOINTS. */
  endpoint: string;
  /** What the console did wrong before the fix. */
  note: string;
  params?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * `{ "length": { "toString": 1 } }` where a string is expected: zod 4.6.7 runs a string's
 * min/max length checks on any value whose `length` is defined, and comparing that `length` with
 * a number throws a TypeError out of safeParse (its toString is not callable). Every body field
 * with a length bound took the 500.
 */
const LENGTH_OBJECT = '{"length":{"toString":1}}';

export const CORPUS: readonly CorpusEntry[] = [
  {
    endpoint: "POST /api/session",
    note: "500 internal_error: TypeError 'Cannot convert object to primitive value' thrown by zod's min-length check inside safeParse",
    body: `{"token":${LENGTH_OBJECT}}`,
  },
  {
    endpoint: "POST /api/sources/openapi",
    note: "500 internal_error, as above (the first finding, seed 1233916414)",
    body: `{"text":${LENGTH_OBJECT}}`,
  },
  {
    endpoint: "POST /api/approvals/decisions",
    note: "500 internal_error, as above, in an array of ids",
    body: `{"ids":[${LENGTH_OBJECT}],"approved":true}`,
  },
  {
    endpoint: "POST /api/tools/[name]/calls",
    note: "500 internal_error, as above, in the call id",
    params: { name: "calculate" },
    body: `{"args":{"expression":"1+1"},"callId":${LENGTH_OBJECT}}`,
  },
  {
    endpoint: "POST /api/agui",
    note: "answered 422 already (the AG-UI schema's zod does not run length checks on non-strings); kept to stay so",
    body: `{"threadId":${LENGTH_OBJECT},"runId":"r","messages":[],"tools":[],"context":[],"state":{},"forwardedProps":{}}`,
  },
  {
    endpoint: "POST /api/approvals/[id]/decision",
    note: "500 internal_error, as above, in the reason",
    params: { id: "x" },
    body: `{"approved":true,"reason":${LENGTH_OBJECT}}`,
  },
  {
    endpoint: "PATCH /api/tools/[name]",
    note: "500 internal_error, as above, in the targets (an array's max length check)",
    params: { name: "calculate" },
    body: `{"targets":${LENGTH_OBJECT}}`,
  },
];
