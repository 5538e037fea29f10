import http from "node:http";
import { EMPTY_ROUTE } from "./bench-routes";
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
 * Each of `sides` measured once per round for `rounds` rounds, which one goes first rotating, so
 * that none always runs on another's garbage and a slow phase of the machine reaches all of them;
 * resolves with each side's values in round order.
 */
export async function rotated(rounds: number, sides: ReadonlyArray<() => Promise<number>>): Promise<number[][]> {
  const values = sides.map((): number[] => []);
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < sides.length; i++) {
      const side = (round + i) % sides.length;
      values[side]!.push(await sides[side]!());
    }
  return values;
}

/**
 * The ratios a[i] / b[i] of two sides' values from `rotated` (in round order), and their median:
 * each round's two servers ran within a minute of each other, so a slow phase of the machine
 * reaches both sides of a round's ratio, where it moves one side's median and not the other's.
 * `ofMedians` is the ratio of the two sides' medians, printed beside it.
 */
export function roundRatios(a: readonly number[], b: readonly number[]): { median: number; each: number[]; ofMedians: number } {
  const each = a.map((value, i) => value / b[i]!);
  return { median: median([...each]), each, ofMedians: median([...a]) / median([...b]) };
}

/** A figure's note for roundRatios: each round's ratio, and the ratio of the two sides' medians. */
export function roundRatiosNote(ratios: { each: number[]; ofMedians: number }): string {
  return `median of the rounds' ratios ${ratios.each.map((r) => r.toFixed(2)).join(", ")}; ratio of the medians ${ratios.ofMedians.toFixed(3)}`;
}

export interface NextHalf {
  title: string;
  /** The protocol's name in labels ("MCP") and what a request does ("tools/call"). */
  protocol: string;
  what: string;
  request: LoadRequest;
  /** Text the first answer must hold: the route really ran the call. */
  expect: string;
  /** The bare SDK server's route in the build (app/api/bench/), sent the same request. */
  barePath: string;
  /** Text the bare SDK route's first answer must hold. */
  bareExpect: string;
  target: number;
  clients: number;
  calls: number;
  rounds: number;
}

/**
 * A route of the production build (served as `npm start` serves it) against an empty route of the
 * same build, and the bare SDK server in a route of that build against the same empty route: the
 * ceiling of any route that serves the protocol's SDK (see bench/support/bench-routes.ts). The three
 * take turns in each round, which one goes first rotating; each ratio is the median of the rounds'
 * own ratios, so a slow phase of the machine (every server here runs at half speed for minutes at
 * times) lands on both sides of a ratio. Skipped without a build.
 */
export async function nextRouteAgainstBaselines(half: NextHalf): Promise<BenchResult> {
  const { title, protocol, request } = half;
  if (!hasBuild()) return { title, figures: [], skipped: "needs a production build (npm run build)" };
  const built = await startBuiltConsole();
  const load = new Load(half.clients);
  const empty: LoadRequest = { path: EMPTY_ROUTE, body: () => "{}" };
  const bare: LoadRequest = { ...request, path: half.barePath };
  try {
    const answers = [
      [request, half.expect],
      [bare, half.bareExpect],
      [empty, "{}"],
    ] as const;
    for (const [sent, expected] of answers) {
      const answer = await load.send(built.base, sent);
      if (!answer.includes(expected)) throw new Error(`unexpected answer from ${sent.path}: ${answer}`);
      await load.throughput(built.base, 500, sent);
    }
    const rates = await rotated(
      half.rounds,
      [request, bare, empty].map((side) => () => load.throughput(built.base, half.calls, side)),
    );
    const [routeRates, bareRates, emptyRates] = rates as [number[], number[], number[]];
    const [route, bareRate, emptyRate] = [median(routeRates), median(bareRates), median(emptyRates)];
    const ratio = (a: number[], b: number[]) => median(a.map((rate, i) => rate / b[i]!));
    const emptyMs = 1000 / emptyRate;
    return {
      title,
      figures: [
        { label: `${half.what}, ${half.clients} clients, POST ${request.path}`, value: route, unit: "calls/s" },
        { label: `${half.clients} clients, an empty route (POST ${EMPTY_ROUTE})`, value: emptyRate, unit: "requests/s" },
        { label: `ratio ${protocol} route / empty route`, value: ratio(routeRates, emptyRates), unit: "x", target: { min: half.target } },
        {
          label: `  time per request: ${protocol} route, empty route`,
          value: 1000 / route,
          unit: "ms",
          note: `empty ${emptyMs.toFixed(2)} ms: the ${protocol} handler adds ${(1000 / route - emptyMs).toFixed(2)} ms`,
        },
        { label: `${half.what}, the bare SDK server in a route (POST ${half.barePath})`, value: bareRate, unit: "calls/s" },
        {
          label: "  ratio bare SDK route / empty route",
          value: ratio(bareRates, emptyRates),
          unit: "x",
          note: "the most a route serving the SDK reaches",
        },
        { label: `  ratio ${protocol} route / bare SDK route`, value: ratio(routeRates, bareRates), unit: "x" },
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
 * above what an empty route pays. Resolves with the figure of the empty handler's rate, the SDK's
 * own time in its note.
 */
export async function sdkOwnWork(clients: number, emptyRound: () => Promise<number>, bareRate: number): Promise<Figure> {
  const emptyRate = median([await emptyRound(), await emptyRound(), await emptyRound()]);
  const sdkMs = 1000 / bareRate - 1000 / emptyRate;
  return {
    label: `  ${clients} clients, an empty handler on the same adapter`,
    value: emptyRate,
    unit: "requests/s",
    note: `the bare SDK server spends ${sdkMs.toFixed(2)} ms per call above it`,
  };
}
