import http from "node:http";
import type { AddressInfo } from "node:net";
import { type BaseEvent, EventType, type RunAgentInput } from "@ag-ui/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentHTTPError, AgentStreamError, HttpAGUIClient } from "@/lib/client";
import { ev } from "./fixtures";

const SECRET = "Bearer s3cr3t-token-do-not-leak";
const sse = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;

interface Seen {
  method?: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}
const requests: Seen[] = [];
/** Per path: when the server saw the client's socket close. */
const closedAt = new Map<string, number>();

const routes: Record<string, (res: http.ServerResponse) => void> = {
  "/run": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" });
    const body = [
      ": keepalive\n\n",
      sse(ev.runStarted("r1")),
      "event: ignored\nid: 7\n",
      sse({ type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant" }),
      sse({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "héllo 🌍" }),
      sse({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: 42 }), // invalid: skipped
      "data: {not json\n\n", // not JSON: skipped
      sse({ type: "FUTURE_EVENT", x: 1 }), // unknown type: skipped
      sse({ type: EventType.TEXT_MESSAGE_END, messageId: "m1" }),
      sse({ type: EventType.TEXT_MESSAGE_CHUNK, messageId: "m2", delta: "chunked" }),
      sse(ev.runFinished("r1")),
    ].join("");
    // Split inside a multi-byte character and inside frames, across writes.
    const bytes = Buffer.from(body);
    const cut = [17, 90, bytes.indexOf(Buffer.from("🌍")) + 2, bytes.length - 5];
    let from = 0;
    for (const at of cut) {
      res.write(bytes.subarray(from, at));
      from = at;
    }
    res.end(bytes.subarray(from));
  },
  "/status-500": (res) => {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "internal", message: "database on fire" } }));
  },
  "/status-401": (res) => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "unauthorized", message: "bad token" } }));
  },
  "/json": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ hello: "world" }));
  },
  "/stall": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse(ev.runStarted("r1")));
  },
  "/eof": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end([sse(ev.runStarted("r1")), sse({ type: EventType.TEXT_MESSAGE_START, messageId: "m1" })].join(""));
  },
  "/hang": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse(ev.runStarted("r1")));
    res.write(sse({ type: EventType.TEXT_MESSAGE_START, messageId: "m1" }));
    const timer = setInterval(() => res.write(sse({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "." })), 20);
    res.on("close", () => clearInterval(timer));
  },
  "/out-of-order": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(
      [
        sse(ev.runStarted("r1")),
        sse({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "nope", delta: "x" }),
        sse(ev.runFinished("r1")),
      ].join(""),
    );
  },
  "/done-but-open": (res) => {
    // The run ends, but the server keeps the connection open.
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse(ev.runStarted("r1")) + sse(ev.runFinished("r1")));
  },
};

const server = http.createServer((req, res) => {
  const path = req.url ?? "";
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => (raw += chunk));
  req.on("end", () => {
    requests.push({ method: req.method, headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
    res.on("close", () => closedAt.set(path, performance.now()));
    const route = routes[path];
    if (route) route(res);
    else res.writeHead(404).end();
  });
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  vi.restoreAllMocks();
  requests.length = 0;
});

const input = (resume?: RunAgentInput["resume"]): RunAgentInput => ({
  threadId: "t1",
  runId: "r1",
  state: { a: 1 },
  messages: [{ id: "u1", role: "user", content: "hi" }],
  tools: [],
  context: [],
  forwardedProps: {},
  ...(resume ? { resume } : {}),
});

async function collect(client: HttpAGUIClient, runInput = input(), signal?: AbortSignal): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  for await (const event of client.stream(runInput, { signal })) events.push(event);
  return events;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

/** Everything an error exposes, to check that no header leaked into it. */
function exposed(err: Error): string {
  return JSON.stringify({
    ...err,
    message: err.message,
    stack: err.stack,
    name: err.name,
    cause: String((err as { cause?: unknown }).cause),
  });
}

function silenceConsole() {
  return {
    warn: vi.spyOn(console, "warn").mockImplementation(() => undefined),
    debug: vi.spyOn(console, "debug").mockImplementation(() => undefined),
    error: vi.spyOn(console, "error").mockImplementation(() => undefined),
    log: vi.spyOn(console, "log").mockImplementation(() => undefined),
  };
}

function logged(spies: ReturnType<typeof silenceConsole>): string {
  return JSON.stringify(Object.values(spies).flatMap((spy) => spy.mock.calls));
}

describe("HttpAGUIClient", () => {
  it("POSTs the input as JSON with the SSE accept header and yields the validated events", async () => {
    const spies = silenceConsole();
    let calls = 0;
    const client = new HttpAGUIClient(`${base}/run`, { headers: () => ({ Authorization: SECRET, "X-Call": String(++calls) }) });
    const events = await collect(client, input([{ interruptId: "i1", status: "cancelled" }]));
    expect(events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(events[2]).toMatchObject({ delta: "héllo 🌍" });
    expect(requests[0]).toMatchObject({
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: SECRET, "x-call": "1" },
    });
    expect(requests[0]?.body).toEqual({ ...input(), resume: [{ interruptId: "i1", status: "cancelled" }] });
    // The invalid event and the non-JSON frame were skipped with warnings; the unknown type at debug level.
    expect(spies.warn).toHaveBeenCalledTimes(2);
    expect(spies.debug).toHaveBeenCalledTimes(1);
    await collect(client);
    expect(requests[1]?.headers["x-call"]).toBe("2");
    expect(requests[1]?.body).not.toHaveProperty("resume");
    expect(logged(spies)).not.toContain("s3cr3t");
  });

  it.each([
    ["/status-500", 500],
    ["/status-401", 401],
  ])("a non-2xx answer (%s) throws AgentHTTPError with the status; the body goes to debug only", async (path, status) => {
    const spies = silenceConsole();
    const client = new HttpAGUIClient(`${base}${path}`, { headers: { Authorization: SECRET } });
    const err = await failure(collect(client));
    expect(err).toBeInstanceOf(AgentHTTPError);
    expect((err as AgentHTTPError).status).toBe(status);
    expect(err.message).not.toMatch(/database on fire|bad token/);
    expect(spies.debug.mock.calls.flat().some((arg) => JSON.stringify(arg).includes("error"))).toBe(true);
    expect(spies.warn).not.toHaveBeenCalled();
    expect(exposed(err)).not.toContain("s3cr3t");
    expect(logged(spies)).not.toContain("s3cr3t");
  });

  it("another content type throws AgentStreamError(content_type)", async () => {
    const client = new HttpAGUIClient(`${base}/json`, { headers: { Authorization: SECRET } });
    const err = await failure(collect(client));
    expect(err).toBeInstanceOf(AgentStreamError);
    expect((err as AgentStreamError).reason).toBe("content_type");
    expect(exposed(err)).not.toContain("s3cr3t");
  });

  it("no bytes within the read timeout throws AgentStreamError(timeout) after the events that came", async () => {
    const client = new HttpAGUIClient(`${base}/stall`, { headers: { Authorization: SECRET }, timeoutMs: 300 });
    const events: BaseEvent[] = [];
    const started = performance.now();
    const err = await failure(
      (async () => {
        for await (const event of client.stream(input())) events.push(event);
      })(),
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED"]);
    expect(err).toBeInstanceOf(AgentStreamError);
    expect((err as AgentStreamError).reason).toBe("timeout");
    expect(exposed(err)).not.toContain("s3cr3t");
    await waitFor(() => closedAt.has("/stall"));
  });

  it("an end before the terminal event throws AgentStreamError(eof), never a synthetic RUN_ERROR", async () => {
    const client = new HttpAGUIClient(`${base}/eof`, { headers: { Authorization: SECRET } });
    const events: BaseEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const event of client.stream(input())) events.push(event);
      })(),
    );
    expect(err).toBeInstanceOf(AgentStreamError);
    expect((err as AgentStreamError).reason).toBe("eof");
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START"]);
    expect(exposed(err)).not.toContain("s3cr3t");
  });

  it("events out of order throw AgentStreamError(protocol) with the verifier's message", async () => {
    const client = new HttpAGUIClient(`${base}/out-of-order`);
    const err = await failure(collect(client));
    expect(err).toBeInstanceOf(AgentStreamError);
    expect((err as AgentStreamError).reason).toBe("protocol");
    expect(err.message).toMatch(/No active text message found with ID 'nope'/);
  });

  it("a server that keeps the connection open after the run ended is not an error", async () => {
    const client = new HttpAGUIClient(`${base}/done-but-open`, { timeoutMs: 200 });
    const events = await collect(client);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
  });

  describe("cancelling closes the upstream within a second", () => {
    async function cancelled(cancel: (ctx: { client: HttpAGUIClient; controller: AbortController }) => void, viaBreak = false) {
      closedAt.delete("/hang");
      const client = new HttpAGUIClient(`${base}/hang`, { headers: { Authorization: SECRET } });
      const controller = new AbortController();
      let cancelledAt = 0;
      let seen = 0;
      const err = await (async () => {
        try {
          for await (const event of client.stream(input(), { signal: controller.signal })) {
            if (event.type === EventType.TEXT_MESSAGE_CONTENT && ++seen === 3) {
              cancelledAt = performance.now();
              if (viaBreak) break;
              cancel({ client, controller });
            }
          }
          return undefined;
        } catch (error) {
          return error as Error;
        }
      })();
      await waitFor(() => closedAt.has("/hang"), 2_000);
      return { err, closeMs: closedAt.get("/hang")! - cancelledAt };
    }

    it("by the signal: the loop throws the abort reason and the server sees the close", async () => {
      const { err, closeMs } = await cancelled(({ controller }) => controller.abort());
      expect(err?.name).toBe("AbortError");
      expect(closeMs).toBeLessThan(1_000);
      console.info(`[measure] upstream closed ${closeMs.toFixed(1)} ms after abort()`);
    });

    it("by breaking out of the loop", async () => {
      const { err, closeMs } = await cancelled(() => undefined, true);
      expect(err).toBeUndefined();
      expect(closeMs).toBeLessThan(1_000);
      console.info(`[measure] upstream closed ${closeMs.toFixed(1)} ms after break`);
    });

    it("by aclose(), which is idempotent and refuses new runs", async () => {
      const { err, closeMs } = await cancelled(({ client }) => void client.aclose());
      expect(err).toBeInstanceOf(AgentStreamError);
      expect((err as AgentStreamError).reason).toBe("closed");
      expect(closeMs).toBeLessThan(1_000);
      console.info(`[measure] upstream closed ${closeMs.toFixed(1)} ms after aclose()`);
    });
  });

  it("aclose() twice is fine, and a closed client refuses to stream", async () => {
    const client = new HttpAGUIClient(`${base}/run`);
    await client.aclose();
    await client.aclose();
    const err = await failure(collect(client));
    expect((err as AgentStreamError).reason).toBe("closed");
    expect(requests).toHaveLength(0);
  });

  it("an invalid input is refused before anything is sent", async () => {
    const client = new HttpAGUIClient(`${base}/run`);
    const err = await failure(collect(client, { ...input(), forwardedProps: null } as unknown as RunAgentInput));
    expect(err.name).toBe("AgentInputError");
    expect(requests).toHaveLength(0);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
