import http from "node:http";
import { hasBuild, startBuiltConsole } from "./built-console";
import { median, type BenchResult, type Figure } from "./measure";
import { serveInChild } from "./served-handler";

/** One request of a load: GET `path`, or POST a fresh `body()` to it with `headers`. */
export interface LoadRequest {
  path: string;
  body?: () => string;
  headers?: Record<string, string>;
  /** The status the answer must have (200 unless given). */
  status?: number;
}

/** Loopback HTTP load: `clients` requests always in flight over one keep-alive agent. */
export class Load {
  private readonly agent: http.Agent;

  constructor(readonly clients: number) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  }

  /** Send `request` to `base`; resolves with the answer's text, rejects on any status but the one expected. */
  send(base: string, request: LoadRequest): Promise<string> {
    const url = new URL(`${base}${request.path}`);
    const body = request.body?.();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent: this.agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: body === undefined ? "GET" : "POST",
          headers:
            body === undefined ? {} : { "content-type": "application/json", ...request.headers, "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () =>
            res.statusCode === (request.status ?? 200) ? resolve(text) : reject(new Error(`${res.statusCode}: ${text}`)),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  /** Requests per second sending `calls` of `request` to `base`, `clients` at a time. */
  async throughput(base: string, calls: number, request: LoadRequest): Promise<number> {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: this.clients }, async () => {
        while (next++ < calls) await this.send(base, request);
      }),
    );
    return (calls * 1000) / (performance.now() - started);
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * The medians of two measurements taken in `rounds` rounds that alternate which goes first, so
 * neither always runs on the other's garbage.
 */
export async function interleaved(rounds: number, first: () => Promise<number>, second: () => Promise<number>): Promise<[number, number]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2) b.push(await second());
    a.push(await first());
    if (!(round % 2)) b.push(await second());
  }
  return [median(a), median(b)];
}

export interface NextHalf {
  title: string;
  /** The protocol's name in labels ("MCP") and what a request does ("tools/call"). */
  protocol: string;
  what: string;
  request: LoadRequest;
  /** Text the first answer must hold: the route really ran the call. */
  expect: string;
  target: number;
  clients: number;
  calls: number;
  rounds: number;
  /** More figures from the health route's time per request (ms). */
  more?: (healthMs: number) => Figure[];
}

/**
 * A route of the production build (served as `npm start` serves it) against GET /api/health, the
 * nearest thing the console has to an empty route (a few bytes after a `select 1`, a rolled-back
 * write probe and checks of the database file). Both pay Next's own per-request cost; their ratio
 * says how much the route's handler adds on top. Health is no empty route, so Next's own 405 to the
 * same POST is printed too, without a target: the least any route can cost. Skipped without a build.
 */
export async function nextRouteAgainstHealth(half: NextHalf): Promise<BenchResult> {
  const { title, protocol, request } = half;
  if (!hasBuild()) return { title, figures: [], skipped: "needs a production build (npm run build)" };
  const built = await startBuiltConsole();
  const load = new Load(half.clients);
  const health: LoadRequest = { path: "/api/health" };
  // The same POST sent where no handler takes it: Next answers 405 itself (routing, the request,
  // the answer; no body read). A floor under any route, below an empty one.
  const refused: LoadRequest = { ...request, path: "/api/health", status: 405 };
  try {
    const answer = await load.send(built.base, request);
    if (!answer.includes(half.expect)) throw new Error(`unexpected answer: ${answer}`);
    await load.throughput(built.base, 500, request);
    await load.throughput(built.base, 500, health);
    const [route, empty] = await interleaved(
      half.rounds,
      () => load.throughput(built.base, half.calls, request),
      () => load.throughput(built.base, half.calls, health),
    );
    await load.throughput(built.base, 500, refused);
    const [routeAgain, floor] = await interleaved(
      half.rounds,
      () => load.throughput(built.base, half.calls, request),
      () => load.throughput(built.base, half.calls, refused),
    );
    const healthMs = 1000 / empty;
    return {
      title,
      figures: [
        { label: `${half.what}, ${half.clients} clients, POST ${request.path}`, value: route, unit: "calls/s" },
        { label: `${half.clients} clients, GET /api/health`, value: empty, unit: "requests/s" },
        { label: `ratio ${protocol} route / health route`, value: route / empty, unit: "x", target: { min: half.target } },
        {
          label: `  time per request: ${protocol} route, health route`,
          value: 1000 / route,
          unit: "ms",
          note: `health ${healthMs.toFixed(2)} ms: the ${protocol} handler adds ${(1000 / route - healthMs).toFixed(2)} ms`,
        },
        ...(half.more?.(healthMs) ?? []),
        {
          label: `  Next's own 405 to the same POST (no handler runs), ${half.clients} clients`,
          value: floor,
          unit: "requests/s",
          note: `the ${protocol} route at ${((100 * routeAgain) / floor).toFixed(0)}% of it, in rounds of its own (${routeAgain.toFixed(0)} calls/s)`,
        },
      ],
    };
  } finally {
    load.close();
    await built.stop();
  }
}

/** Calls sent to a fresh server before a round is timed (its JIT warmed, its pools filled). */
const WARM_UP_CALLS = 2000;

/**
 * One round against a server process of its own, started for it: `factory` of `modulePath` served
 * (see serveInChild), its first answer given to `check`, warmed up, then `calls` of `request` timed,
 * then stopped. Resolves with the calls per second the clients saw; `cpuMicros` gets the CPU the
 * server's process used per call meanwhile (all its threads: the JIT's, the collector's, a
 * worker's), which says whether the server or the clients (in this process, on the other core) were
 * the slower side. The same server's rate moved by up to 40% from one process to the next here (its
 * JIT, its heap), so each round gets a fresh process and the rounds' median evens that out.
 */
export async function freshServerRound(
  load: Load,
  modulePath: string,
  factory: string,
  calls: number,
  request: LoadRequest,
  cpuMicros: number[],
  check?: (answer: string) => void,
): Promise<number> {
  const server = await serveInChild(modulePath, factory);
  try {
    check?.(await load.send(server.base, request));
    await load.throughput(server.base, WARM_UP_CALLS, request);
    const cpu = server.cpuSeconds();
    const rate = await load.throughput(server.base, calls, request);
    cpuMicros.push(((server.cpuSeconds() - cpu) * 1e6) / calls);
    return rate;
  } finally {
    await server.stop();
  }
}

/** A figure's note for the CPU per call of freshServerRound's server processes (the median of the rounds). */
export function cpuPerCallNote(cpuMicros: number[]): string {
  return `its process's CPU: ${median(cpuMicros).toFixed(0)} µs a call`;
}

/**
 * The SDK's own time per call: a bare SDK server's time per request (`bareRate`, requests/s) less
 * that of a handler on the same adapter that only answers (`emptyRound`, one round's requests/s,
 * the median of three taken), with the same clients. Any route serving the SDK pays at least this
 * above what an empty route pays. Returns it in ms, with the figure that prints the empty handler's rate.
 */
export async function sdkOwnWork(
  clients: number,
  emptyRound: () => Promise<number>,
  bareRate: number,
): Promise<{ sdkMs: number; figure: Figure }> {
  const emptyRate = median([await emptyRound(), await emptyRound(), await emptyRound()]);
  const sdkMs = 1000 / bareRate - 1000 / emptyRate;
  return {
    sdkMs,
    figure: {
      label: `  ${clients} clients, an empty handler on the same adapter`,
      value: emptyRate,
      unit: "requests/s",
      note: `the bare SDK server spends ${sdkMs.toFixed(2)} ms per call above it`,
    },
  };
}

/**
 * An estimate of the ratio against the health route that a route serving the bare SDK would reach:
 * health's time per request against health's plus the SDK's own (see sdkOwnWork), timed on the
 * adapter. Not a bound: the console's routes have passed it (the SDK's time on the adapter, under
 * its load there, is not its time inside Next's server). For NextHalf.more.
 */
export function sdkEstimate(sdkMs: number | undefined): (healthMs: number) => Figure[] {
  return (healthMs) =>
    sdkMs === undefined
      ? []
      : [
          {
            label: "  estimate for the bare SDK's own work in this route",
            value: healthMs / (healthMs + sdkMs),
            unit: "x",
            note: `health ${healthMs.toFixed(2)} ms + the SDK's ${sdkMs.toFixed(2)} ms`,
          },
        ];
}
