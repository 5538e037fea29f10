import net from "node:net";
import { ENDPOINTS, splitKey } from "./endpoints";
import { deepJson, mixedString } from "./generators";
import { Random } from "./random";

/**
 * The real-HTTP fuzz pass: requests written byte by byte on a TCP socket, so that nothing a
 * client library would refuse to send is left out (lowercase and unknown methods, malformed
 * percent-escapes and raw bytes in the path, missing or doubled Host headers). It runs against a
 * console on 127.0.0.1: the node adapter in vitest, the built console in the Playwright suite and
 * in `npm run fuzz`. Only the status line and headers of an answer are read.
 */

/** What a raw exchange came back with: the status, the headers, or why there was no answer. */
export interface RawAnswer {
  status?: number;
  headers: Record<string, string>;
  /** Set when no status line came: "timeout", "closed", or a socket error's code. */
  failure?: string;
}

/** One request as raw text: request line, headers and body, each written as given. */
export interface RawRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body?: string;
}

/** The request's bytes on the wire (UTF-8, so raw non-ASCII characters go out as bytes). */
export function wireBytes(request: RawRequest): Buffer {
  const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  const lines = [`${request.method} ${request.target} HTTP/1.1`, ...request.headers.map(([name, value]) => `${name}: ${value}`)];
  if (body && !request.headers.some(([name]) => name.toLowerCase() === "content-length")) lines.push(`Content-Length: ${body.length}`);
  lines.push("Connection: close", "", "");
  return Buffer.concat([Buffer.from(lines.join("\r\n"), "utf8"), body ?? Buffer.alloc(0)]);
}

/** Send `request` to host:port and read until the headers of the answer are in; then hang up. */
export function rawExchange(host: string, port: number, request: RawRequest, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish({ headers: {}, failure: "timeout" }), timeoutMs);
    // Written, not ended: Node's server closes a connection whose client half-closes it before
    // the answer is ready (pages take a moment), which would look like a missing answer.
    socket.on("connect", () => socket.write(wireBytes(request)));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end >= 0) finish(parseHead(received.subarray(0, end).toString("latin1")));
    });
    // The server may answer and close before the whole request is written: the answer counts.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const end = received.indexOf("\r\n\r\n");
      finish(end >= 0 ? parseHead(received.subarray(0, end).toString("latin1")) : { headers: {}, failure: error.code ?? error.message });
    });
    socket.on("close", () => finish({ headers: {}, failure: "closed" }));
  });
}

function parseHead(head: string): RawAnswer {
  const [statusLine = "", ...lines] = head.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(":");
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return match ? { status: Number(match[1]), headers } : { headers, failure: `not an HTTP answer: ${statusLine.slice(0, 80)}` };
}

// ---- the generator ----------------------------------------------------------------------

/** Methods a client may put on the request line; Node's parser itself refuses some (400). */
const METHODS = [
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "PROPFIND",
  "MKCOL",
  "get",
  "Post",
  "TRACK",
  "SEARCH",
];

/** Path segments as they appear on the wire: plain, percent-encoded, malformed, raw bytes. */
const RAW_SEGMENTS = [
  "calculate",
  "demo",
  "%E0",
  "%ZZ",
  "%",
  "%C0%AF",
  "%E0%A4",
  "%ED%A0%80",
  "%00",
  "%2e%2e",
  "..",
  "%2F",
  "a%0D%0Ab",
  "%22quoted%22",
  "%F0%9F%98%80",
  "caf%C3%A9",
  "%u00e9",
  "é",
  "%25E0",
  "x".repeat(3000),
];

const QUERIES = [
  "",
  "",
  "?limit=-5",
  "?limit=abc",
  "?q=%E0",
  "?cursor=%ZZ",
  "?format=jsonl",
  "?limit=1&limit=2",
  "?" + "a=1&".repeat(500),
  "?%",
];

/** Pages and files besides the API, and paths that exist nowhere. */
const OTHER_PATHS = [
  "/",
  "/approvals",
  "/tools/calculate",
  "/tools/%E0",
  "/_next/static/x.js",
  "/favicon.ico",
  "/api/nope",
  "/api/tools/../health",
  "//api//tools",
  // Asterisk-form and absolute-form request targets, which browsers never send to a server.
  "*",
  "http://evil.example/api/tools",
  "//evil.example/",
];

export interface RawPassOptions {
  /**
   * Whether requests that could change something may be sent as a client allowed to. When false
   * (a console other specs still use), every such request carries a fault that must refuse it
   * before anything runs: an unknown token, a foreign Host, another site's Origin, or a
   * malformed path.
   */
  allowWrites: boolean;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** A raw request for a console on `port`: a known route or another path, broken at random. */
export function rawFuzzRequest(r: Random, port: number, options: RawPassOptions): RawRequest {
  const keys = Object.keys(ENDPOINTS);
  const [knownMethod, pattern] = splitKey(r.pick(keys));
  const method = r.chance(0.7) ? knownMethod : r.pick(METHODS);
  const path = r.chance(0.85)
    ? pattern.replace(/\[(\w+)\]/g, () => (r.chance(0.5) ? r.pick(["calculate", "demo", "seed"]) : r.pick(RAW_SEGMENTS)))
    : r.pick(OTHER_PATHS);
  const target = path + r.pick(QUERIES);
  const headers: Array<[string, string]> = [];
  const host = r.weighted<string | undefined>([
    [8, () => `127.0.0.1:${port}`],
    [2, () => r.pick([`localhost:${port}`, `[::1]:${port}`, `console.test:${port}`])],
    [2, () => r.pick(["evil.example", "", "127.0.0.1:3000:1", "[::1", "a".repeat(2000)])],
    [1, () => undefined],
  ]);
  if (host !== undefined) headers.push(["Host", host]);
  if (r.chance(0.05)) headers.push(["Host", "evil.example"]);
  const origin = r.weighted<string | undefined>([
    [6, () => undefined],
    [2, () => `http://127.0.0.1:${port}`],
    [2, () => r.pick(["http://evil.example", "null", `http://127.0.0.1:${port + 1}`, "garbage"])],
  ]);
  if (origin !== undefined) headers.push(["Origin", origin]);
  if (r.chance(0.2)) headers.push(["Authorization", r.pick(["Bearer nope", "Basic eDp5", "Bearer"])]);
  let body: string | undefined;
  if (!SAFE.has(method.toUpperCase()) && r.chance(0.8)) {
    headers.push(["Content-Type", r.pick(["application/json", "text/plain", "application/json; charset=latin1", "multipart/form-data"])]);
    body = r.pick(['{"messages":[]}', "{", deepJson(r.pick([100, 5000]), "array"), mixedString(r, 50), ""]);
    if (r.chance(0.05)) headers.push(["Content-Length", r.pick(["-1", "abc", "10, 20"])]);
    if (r.chance(0.05)) headers.push(["Transfer-Encoding", "chunked"]);
  }
  const request: RawRequest = { method, target, headers, ...(body !== undefined && { body }) };
  return options.allowWrites || SAFE.has(method.toUpperCase()) ? request : disarm(r, request, port);
}

/** `request` with a fault that refuses it before it can change anything (see RawPassOptions). */
function disarm(r: Random, request: RawRequest, port: number): RawRequest {
  const others = request.headers.filter(([name]) => !["host", "origin", "authorization"].includes(name.toLowerCase()));
  return r.weighted<RawRequest>([
    [3, () => ({ ...request, headers: [["Host", `127.0.0.1:${port}`], ["Authorization", "Bearer not-a-token"], ...others] })],
    [2, () => ({ ...request, headers: [["Host", r.pick(["evil.example", `evil.example:${port}`])], ...others] })],
    [2, () => ({ ...request, headers: [["Host", `127.0.0.1:${port}`], ["Origin", "http://evil.example"], ...others] })],
    [1, () => ({ ...request, target: `/api/tools/%E0${request.target.includes("?") ? "" : "?x=1"}` })],
  ]);
}

/** A finding of the raw pass: the request (as sent) and what came back. */
export interface RawFinding {
  request: string;
  answer: string;
}

export interface RawPassResult {
  seed: number;
  sent: number;
  statuses: Record<string, number>;
  findings: RawFinding[];
}

/**
 * Send `count` raw requests to the console at host:port, `concurrency` at a time. A finding is
 * an answer of 500 or more, or no answer at all (timeout, or the connection closed with none).
 */
export async function runRawPass(
  target: { host: string; port: number },
  seed: number,
  count: number,
  options: RawPassOptions & { concurrency?: number },
): Promise<RawPassResult> {
  const r = new Random(seed);
  const requests = Array.from({ length: count }, () => rawFuzzRequest(r, target.port, options));
  const statuses: Record<string, number> = {};
  const findings: RawFinding[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      const answer = await rawExchange(target.host, target.port, request);
      const key = answer.status === undefined ? (answer.failure ?? "none") : String(answer.status);
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (answer.status === undefined || answer.status >= 500)
        findings.push({
          request: describeRaw(request),
          answer: answer.status === undefined ? `no answer (${answer.failure})` : `${answer.status}`,
        });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return { seed, sent: requests.length, statuses, findings };
}

/** The request's first lines, cut for a report. */
export function describeRaw(request: RawRequest): string {
  const text = wireBytes(request).toString("utf8");
  return JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…(${text.length} bytes)` : text);
}
