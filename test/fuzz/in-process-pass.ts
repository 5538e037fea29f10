import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { consoleApi } from "@/lib/api";
import { loadConfig } from "@/lib/config";
import { demoTools } from "@/lib/demo/tools";
import { createLogger } from "@/lib/log";
import { createServices, type SqliteServices } from "@/lib/services";
import { tempDir } from "../support/services";
import { ENDPOINTS, FUZZ_DOCUMENT, splitKey, World } from "./endpoints";
import { describeRequest, fuzzRequest, toWebRequest, type Callers, type FuzzRequest } from "./fuzz-request";
import { Random } from "./random";
import { loadRouteExports, type RouteExport } from "./route-files";
import { WriteJournal } from "./write-journal";

/** Something the pass found wrong, with the request that showed it. */
export interface Finding {
  /** What broke: "5xx", "error body", "wrote while refusing", "no answer", "stuck run", "threw". */
  kind: string;
  endpoint: string;
  detail: string;
  request?: string;
  /** Error lines the console logged while it handled the request (stacks included). */
  log?: string[];
}

export interface PassResult {
  seed: number;
  requests: number;
  /** Requests the fuzz built that no HTTP client can send (a header value with NUL, say): skipped. */
  unsendable: number;
  statuses: Record<string, number>;
  /** Milliseconds spent on each endpoint over the pass. */
  time: Record<string, number>;
  findings: Finding[];
  /** Heap in use after a forced collection at the end of the first and of the second half, in bytes. */
  heap: [number, number];
  health: { status: number; body: string };
  running: string[];
  ms: number;
}

/** How long a handler may take to answer before the pass calls it hung. */
const ANSWER_TIMEOUT_MS = 15_000;
/** How much of a stream (SSE) the pass reads before it hangs up, and for how long at most. */
const STREAM_READ_BYTES = 64 * 1024;
const STREAM_READ_MS = 2_000;
/** Once a stream has sent something, this long without more counts as idle: the client hangs up. */
const STREAM_IDLE_MS = 50;
/** How long a run may take to record its end after its client left. */
const RUN_SETTLE_MS = 10_000;

/** How many requests a concurrent burst sends at once. */
const BURST_SIZE = 8;

/** The route handlers reach the process's services through getServices(); this is its key. */
const SERVICES_KEY = Symbol.for("agui-console.services");

/**
 * The in-process fuzz pass: the console's route exports (what Next calls) over services on a
 * real SQLite file, `perEndpoint` random requests to each endpoint, in a random order. It checks
 * each answer as it comes (no 5xx, a JSON error body on every refusal, nothing written by a
 * refused request, streams that end their run), then that no run is left running, that health
 * answers ok, and how the heap moved between the two halves of the pass.
 */
export async function runInProcessPass(fuzz: FuzzServices, seed: number, perEndpoint: number): Promise<PassResult> {
  return drive(fuzz.services, seed, perEndpoint, fuzz.errorLines, Date.now());
}

/** SqliteServices the route exports reach, and the error lines they logged. */
export interface FuzzServices {
  services: SqliteServices;
  errorLines: string[];
  close(): void;
}

let openedInThisProcess = false;

/**
 * Fresh services on a real SQLite file, made the process's services (what the route exports
 * reach through getServices), logging errors into `errorLines`. A route module keeps the services
 * of its first request (lib/api route()), so a test file opens these once, in beforeAll; a second
 * call throws rather than let requests reach closed services.
 */
export function openFuzzServices(): FuzzServices {
  if (openedInThisProcess) throw new Error("openFuzzServices: once per test file (route modules keep their first services)");
  openedInThisProcess = true;
  const errorLines: string[] = [];
  const dir = tempDir("agui-console-fuzz-");
  const services = createServices(
    loadConfig({
      CONSOLE_DB: path.join(dir, "console.db"),
      CONSOLE_STATE_DIR: path.join(dir, "state"),
      AGENT_STREAM_DELAY_MS: "0",
      ALLOWED_HOSTS: "console.test",
      // Imported documents point at 127.0.0.1:9, where nothing listens: calls fail at once, offline.
      OUTBOUND_ALLOW: "127.0.0.1/32",
      LOG_LEVEL: "error",
    }),
    { logger: createLogger("error", (line) => errorLines.push(line)) },
  );
  const holder = globalThis as unknown as Record<symbol, Promise<SqliteServices> | undefined>;
  const previous = holder[SERVICES_KEY];
  holder[SERVICES_KEY] = Promise.resolve(services);
  return {
    services,
    errorLines,
    close: () => {
      holder[SERVICES_KEY] = previous;
      services.close();
    },
  };
}

async function drive(
  services: SqliteServices,
  seed: number,
  perEndpoint: number,
  errorLines: string[],
  started: number,
): Promise<PassResult> {
  const r = new Random(seed);
  const journal = new WriteJournal(services.database.sqlite);
  const world = new World(services.database);
  const routes = new Map((await loadRouteExports()).map((route) => [route.key, route]));
  // The route modules' handlers over these services: the same objects, memoised per services.
  const api = consoleApi(services);
  /**
   * Write what the stores that write behind hold in memory (a run's events, call records, A2A
   * tasks in a passing state): each lands "a moment later", which in this pass may be during
   * another request, whose check would count it as that request's write.
   */
  const flushWriteBehind = async () => {
    await services.runs.flush();
    services.callHistory.flush();
    await api.a2a.tasks.flush();
  };
  const tokens: Record<string, string> = {
    all: (await services.tokens.create("fuzz-all", ["agui", "approvals", "tools", "admin"])).token,
    agui: (await services.tokens.create("fuzz-agui", ["agui"])).token,
    tools: (await services.tokens.create("fuzz-tools", ["tools"])).token,
    approvals: (await services.tokens.create("fuzz-approvals", ["approvals"])).token,
  };
  const callers: Callers = { tokens, session: (await services.sessions.open(tokens.all!)).cookie };
  const findings: Finding[] = [];
  const statuses: Record<string, number> = {};
  const time: Record<string, number> = {};
  let requests = 0;
  let unsendable = 0;

  const running = () =>
    (services.database.sqlite.prepare("select id from runs where status = 'running'").all() as Array<{ id: string }>).map((row) => row.id);

  /** Wait for every run to record its end, then write buffered events, so the next request starts from rest. */
  const settle = async (endpoint: string, request?: string): Promise<void> => {
    const deadline = Date.now() + RUN_SETTLE_MS;
    while (running().length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const stuck = running();
    if (stuck.length)
      findings.push({
        kind: "stuck run",
        endpoint,
        detail: `runs still running ${RUN_SETTLE_MS} ms after their client left: ${stuck.join(", ")}`,
        request,
      });
    await services.runs.flush();
  };

  /** Put back what earlier requests took away, so later ones still reach tools and sessions. */
  const replenish = async () => {
    if (services.registry.count() < 3) await services.registry.upsertBuiltins(demoTools);
    if (!(await services.sessions.verify(callers.session))) callers.session = (await services.sessions.open(tokens.all!)).cookie;
  };

  /**
   * Send one request and check its answer. Alone (`alone`), a refusal is also checked for writes;
   * in a burst of concurrent requests another request's writes cannot be told apart, so not then.
   */
  const sendOne = async (route: RouteExport, request: FuzzRequest, alone = true): Promise<void> => {
    const controller = new AbortController();
    const web = toWebRequest(request, controller.signal);
    if (!web) return void unsendable++;
    requests++;
    if (alone) {
      await replenish();
      // What an earlier request left waiting must not count as this one's write.
      await flushWriteBehind();
    }
    const mark = journal.mark();
    const logged = errorLines.length;
    const described = () => describeRequest(request);
    const note = (kind: string, detail: string): void => {
      findings.push({
        kind: alone ? kind : `${kind} (in a concurrent burst)`,
        endpoint: route.key,
        detail,
        request: described(),
        log: errorLines.slice(logged).map(shortLog),
      });
    };

    let response: Response;
    try {
      response = await withTimeout(route.handler(web, { params: Promise.resolve(request.params) }), ANSWER_TIMEOUT_MS);
    } catch (error) {
      controller.abort();
      return note(error instanceof HangError ? "no answer" : "threw", String(error));
    }
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    const type = response.headers.get("content-type") ?? "";
    let text = "";
    try {
      if (type.startsWith("text/event-stream")) text = await readSome(response, controller);
      else text = await withTimeout(response.text(), ANSWER_TIMEOUT_MS);
    } catch (error) {
      controller.abort();
      note("threw", `reading the answer: ${String(error)}`);
    }
    if (type.startsWith("text/event-stream") && alone) await settle(route.key, described());
    // FUZZ_VERBOSE=1 prints every answer, to see where a pass spends its requests.
    if (process.env.FUZZ_VERBOSE) console.log("FZ", route.key, response.status, text.slice(0, 160).replace(/\n/g, " "));

    if (response.status >= 500) return note("5xx", `${response.status} ${text.slice(0, 300)}`);
    if (response.status >= 400) {
      const problem = errorBodyProblem(type, text);
      if (problem) note("error body", `${response.status}: ${problem}`);
      if (!alone) return;
      // And what this one left waiting counts as its own.
      await flushWriteBehind();
      const wrote = journal.writtenSince(mark);
      if (Object.keys(wrote).length)
        note("wrote while refusing", `${response.status} ${text.slice(0, 200)}; wrote ${JSON.stringify(wrote)}`);
    } else if (type.startsWith("application/json")) {
      try {
        JSON.parse(text);
      } catch {
        note("bad json answer", `${response.status} with content-type ${type}: ${text.slice(0, 200)}`);
      }
    }
  };

  await seedWorld(routes, services);

  // Every endpoint perEndpoint times, in an order shuffled per round.
  const keys = Object.keys(ENDPOINTS).filter((key) => routes.has(key));
  const rounds: string[][] = Array.from({ length: perEndpoint }, () => shuffle(r, keys));
  const half = Math.ceil(rounds.length / 2);
  const gc = collector();
  const heap: [number, number] = [0, 0];
  for (let round = 0; round < rounds.length; round++) {
    if (round === half) heap[0] = measureHeap(gc);
    for (const key of rounds[round]!) {
      const route = routes.get(key)!;
      const shape = ENDPOINTS[key]!;
      const t0 = Date.now();
      await sendOne(route, fuzzRequest(r, route.method, route.path, shape, world, callers));
      time[key] = (time[key] ?? 0) + Date.now() - t0;
    }
    if (round % 10 === 9) journal.clear();
  }
  // Concurrent bursts of random requests, then of requests aimed at one thing at once.
  for (let burst = 0; burst < Math.ceil(perEndpoint / 4); burst++) {
    await replenish();
    await Promise.all(
      Array.from({ length: BURST_SIZE }, () => {
        const route = routes.get(r.pick(keys))!;
        return sendOne(route, fuzzRequest(r, route.method, route.path, ENDPOINTS[route.key]!, world, callers), false);
      }),
    );
    await settle("(after a concurrent burst)");
    await replenish();
    await Promise.all(raceOnOneThing(r, world).map(([key, request]) => sendOne(routes.get(key)!, request, false)));
    await settle("(after a race)");
  }
  await settle("(end of pass)");
  heap[1] = measureHeap(gc);

  const health = await routes
    .get("GET /api/health")!
    .handler(new Request("http://127.0.0.1:3000/api/health", { headers: { host: "127.0.0.1:3000" } }));
  return {
    seed,
    requests,
    unsendable,
    statuses,
    time,
    findings,
    heap,
    health: { status: health.status, body: await health.text() },
    running: running(),
    ms: Date.now() - started,
  };
}

/**
 * Ids worth fuzzing against: an approval waiting for a person, a run and its thread, a recorded
 * call, and an imported source. Made through the same route exports, by the local operator.
 */
async function seedWorld(routes: Map<string, RouteExport>, services: SqliteServices): Promise<void> {
  const local = { host: "127.0.0.1:3000", "content-type": "application/json" };
  const post = async (key: string, url: string, body: unknown, params: Record<string, string> = {}) => {
    const response = await routes
      .get(key)!
      .handler(new Request(`http://127.0.0.1:3000${url}`, { method: "POST", headers: local, body: JSON.stringify(body) }), {
        params: Promise.resolve(params),
      });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`seeding ${key} answered ${response.status}: ${text.slice(0, 300)}`);
  };
  await post(
    "POST /api/tools/[name]/calls",
    "/api/tools/issue_refund/calls",
    { args: { orderId: "A-1", amount: 5 } },
    { name: "issue_refund" },
  );
  await post(
    "POST /api/tools/[name]/calls",
    "/api/tools/calculate/calls",
    { args: { expression: "6 * 7" }, callId: "seed-1" },
    { name: "calculate" },
  );
  await post("POST /api/agui", "/api/agui", {
    threadId: "seed-thread",
    runId: "seed-run",
    messages: [{ id: "m1", role: "user", content: "refund order A-2 for 10" }],
  });
  await post("POST /api/sources/openapi", "/api/sources/openapi", {
    text: JSON.stringify(FUZZ_DOCUMENT),
    options: { prefix: "seed_" },
  });
  await services.runs.flush();
}

/**
 * Well-formed requests from the local operator that all aim at one thing at the same moment: one
 * source (refreshed, removed, imported again), one pending approval (decided several ways, resumed
 * by a run), one thread (several runs, one run id twice), or one tool (changed, removed, called).
 */
function raceOnOneThing(r: Random, world: World): Array<[string, FuzzRequest]> {
  const request = (key: string, params: Record<string, string> = {}, body?: unknown): [string, FuzzRequest] => {
    const [method, path] = splitKey(key);
    const filled = path.replace(/\[(\w+)\]/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
    const headers: Record<string, string> = { host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" };
    if (body !== undefined) headers["content-type"] = "application/json";
    return [
      key,
      {
        method,
        url: `http://127.0.0.1:3000${filled}`,
        headers,
        params,
        ...(body !== undefined && { body: { label: "race", data: JSON.stringify(body) } }),
      },
    ];
  };
  const run = (threadId: string, runId: string, extra: Record<string, unknown> = {}) =>
    request(
      "POST /api/agui",
      {},
      {
        threadId,
        runId,
        messages: [{ id: `m-${r.int(1e9)}`, role: "user", content: r.pick(["refund order A-1 for 10", "calculate 2+2", "/stream 30"]) }],
        ...extra,
      },
    );
  return r.weighted<Array<[string, FuzzRequest]>>([
    [
      world.sources().length ? 2 : 0,
      () => {
        const id = r.pick(world.sources());
        return [
          request("POST /api/sources/[id]/refresh", { id }),
          request("POST /api/sources/[id]/refresh", { id }),
          request("DELETE /api/sources/[id]", { id }),
          request("POST /api/sources/openapi", {}, { text: JSON.stringify(FUZZ_DOCUMENT), options: { prefix: "race_" } }),
          request("POST /api/sources/openapi", {}, { text: JSON.stringify(FUZZ_DOCUMENT), options: { prefix: "race_" } }),
        ];
      },
    ],
    [
      world.pendingApprovals().length ? 3 : 0,
      () => {
        const id = r.pick(world.pendingApprovals());
        const thread = world.threads()[0] ?? "race-thread";
        return [
          request("POST /api/approvals/[id]/decision", { id }, { approved: true }),
          request("POST /api/approvals/[id]/decision", { id }, { approved: false, reason: "race" }),
          request("POST /api/approvals/decisions", {}, { ids: [id], approved: true }),
          run(thread, `race-run-${r.int(1e9)}`, { resume: [{ interruptId: id, status: "resolved", payload: { approved: true } }] }),
          run(thread, `race-run-${r.int(1e9)}`, { resume: [{ interruptId: id, status: "cancelled" }] }),
        ];
      },
    ],
    [
      2,
      () => {
        const thread = `race-thread-${r.int(1e9)}`;
        const runId = `race-run-${r.int(1e9)}`;
        return [run(thread, runId), run(thread, runId), run(thread, `${runId}-b`), request("GET /api/threads/[id]", { id: thread })];
      },
    ],
    [
      2,
      () => {
        const name = r.pick(world.tools().length ? world.tools() : ["calculate"]);
        return [
          request("PATCH /api/tools/[name]", { name }, { enabled: false }),
          request("PATCH /api/tools/[name]", { name }, { approval: "always" }),
          request("POST /api/tools/[name]/calls", { name }, { args: {} }),
          request("DELETE /api/tools/[name]", { name }),
          request("GET /api/tools/[name]/exports", { name }),
        ];
      },
    ],
  ]);
}

/** A problem with an error answer's body, or undefined when it is `{ error: { code, message } }` JSON. */
export function errorBodyProblem(type: string, text: string): string | undefined {
  if (!type.startsWith("application/json")) return `content-type is "${type}", not JSON: ${text.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `the body is not JSON: ${text.slice(0, 200)}`;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error?.code !== "string" || typeof error.message !== "string") return `no { error: { code, message } }: ${text.slice(0, 200)}`;
  return undefined;
}

/** A bounded part of a streamed answer; then the client hangs up (abort and cancel), as a browser tab closing. */
async function readSome(response: Response, controller: AbortController): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + STREAM_READ_MS;
  try {
    while (text.length < STREAM_READ_BYTES) {
      const left = Math.min(deadline - Date.now(), text ? STREAM_IDLE_MS : STREAM_READ_MS);
      if (left <= 0) break;
      const chunk = await Promise.race([reader.read(), new Promise<"late">((resolve) => setTimeout(resolve, left, "late"))]);
      if (chunk === "late" || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    controller.abort(new Error("the fuzz client hung up"));
    await reader.cancel().catch(() => {});
  }
  return text;
}

class HangError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HangError(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function shuffle<T>(r: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A way to force garbage collection: the global gc when node runs with --expose-gc, else one
 * obtained by turning the flag on now (V8 then defines gc in new contexts).
 */
function collector(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}

function measureHeap(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** A logged error line, cut to what a report needs (the message and the top of the stack). */
function shortLog(line: string): string {
  return line.length > 3000 ? `${line.slice(0, 3000)}…` : line;
}
