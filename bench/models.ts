// The assistant agent through the AG-UI endpoint (bare node:http, no Next.js), its model an OpenAI
// Chat Completions client talking to the scripted model server in another process, which answers
// at once:
// 1. the console's own work per model turn: the median time of a one-turn AG-UI run ("hello" →
//    a short answer) minus the median time of the same model call made directly with the driver
//    (same tools, same server), target < 5 ms;
// 2. streaming overhead: tokens per second a client receives through the console's endpoint
//    against the rate the driver reads them from the scripted server directly, same run, rounds
//    interleaved, target ≥ 0.9. Counted in text received (the console joins deltas while its
//    reader is behind, so events are fewer than the model's deltas; the text is the same). A read
//    through the console is timed to its last byte; the bench checks the answer after that.
//    Beside them, a relay: a process that only forwards the scripted server's bytes, read by the
//    same driver. Every process between a model and its reader costs the CPU the relay shows (two
//    cores here, and three processes busy at once), so the relay's ratio to the direct read is the
//    most the console could reach on this machine, whatever its own work.
// For 2 the console runs in a process of its own (./support/served-handler.ts), as it does for its
// users; the client reading its stream and the direct reads run here. With the console in this
// process, the direct reads were collecting the console's garbage (they ran 15-30% faster without
// it) and the console was charged with its client's reading. For 1 the endpoint is served here:
// a turn through another process took 0.5-1.5 ms more of scheduling on 2 cores, not the console's work.
// A miss is reported, never an exit code: timings are not tests.
import { spawn } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import path from "node:path";
import readline from "node:readline";
import type { ToolDescriptor } from "../lib/agents";
import { OpenAIChatModel } from "../lib/agents/models/openai-chat";
import { consoleApi } from "../lib/api";
import { createNodeServer, listenLocal, type WebHandler } from "../lib/http/node-adapter";
import type { Services } from "../lib/services";
import { rotated } from "./support/load";
import { processCpuSeconds } from "./support/process-cpu";
import { median, type BenchResult } from "./support/measure";
import { throwAwayServices } from "./support/noop-services";
import { serveInChild, type HandlerFactory } from "./support/served-handler";

const TURN_ROUNDS = 60;
const STREAM_WORDS = 20_000;
/**
 * Streaming rounds, each a direct read, a read through the console and one through the relay. A
 * round's ratio moves a lot on 2 shared cores: the median of 11 rounds gave 0.72 to 0.96 from one bench run to the next,
 * the median of 31 gave 0.87 to 0.92 in four runs.
 */
const STREAM_ROUNDS = 31;
/** Streamed answers read both ways before the rounds (the console's process is new). */
const STREAM_WARM_UP = 3;
const TARGETS = { turnMs: 5, ratio: 0.9 };

async function startModelServer(): Promise<{ url: string; cpuSeconds: () => number; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "support/model-server-child.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await once(readline.createInterface({ input: child.stdout! }), "line")) as [string];
  return { url: line.trim(), cpuSeconds: () => processCpuSeconds(child.pid!), stop: () => child.stdin!.end() };
}

let seq = 0;
/**
 * POST a one-message run to the assistant and read the stream to its end, as a client elsewhere
 * would: the frames are not parsed while they arrive (that work would land on this process, which
 * also runs the console). Resolves with the bytes as they arrived, once the last one has; what they
 * say is checked afterwards (answerLength), outside the time a client takes to receive them.
 */
async function aguiRun(base: string, text: string): Promise<Uint8Array[]> {
  seq++;
  const response = await fetch(`${base}/api/agui/assistant`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      threadId: `bench-models-t${seq}`,
      runId: `bench-models-r${seq}`,
      messages: [{ id: `u${seq}`, role: "user", content: text }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return chunks;
}

/**
 * The characters of the assistant's answer in a run's stream, read from its MESSAGES_SNAPSHOT.
 * Throws when the run failed or sent no snapshot. About 10 ms for a 20,000-word run's 1.3 MB here,
 * which is why it runs after the timing: the client's reading of the answer is not the console's.
 */
function answerLength(chunks: Uint8Array[]): number {
  const frames = Buffer.concat(chunks).toString("utf8").split("\n\n");
  const failed = frames.find((frame) => frame.includes('"RUN_ERROR"'));
  if (failed) throw new Error(`the run failed: ${failed.slice(0, 300)}`);
  const snapshot = frames.find((frame) => frame.includes('"MESSAGES_SNAPSHOT"'));
  if (!snapshot) throw new Error("the run sent no MESSAGES_SNAPSHOT");
  const { messages } = JSON.parse(snapshot.slice("data: ".length)) as { messages: Array<{ role: string; content?: unknown }> };
  const answer = messages.filter((m) => m.role === "assistant").at(-1);
  return typeof answer?.content === "string" ? answer.content.length : 0;
}

/** Throw-away console services, the assistant's model on the scripted server at `modelUrl`. */
function assistantServices(modelUrl: string): { services: Services; close: () => void } {
  return throwAwayServices({ OPENAI_BASE_URL: `${modelUrl}/v1`, ASSISTANT_MODEL: "openai:bench" });
}

/** The AG-UI endpoint, for serveInChild: its assistant's model the scripted server at BENCH_MODEL_URL. */
export const assistantRoute: HandlerFactory = async () => {
  const { services, close } = assistantServices(process.env.BENCH_MODEL_URL!);
  return { path: "/api/agui/[agent]", handler: consoleApi(services).agui.run as WebHandler, close };
};

/**
 * The relay, for serveInChild: each request forwarded to the scripted server at BENCH_MODEL_URL,
 * its answer's bytes piped back as they arrive, nothing else done with them.
 */
export const byteRelay: HandlerFactory = async () => {
  const upstream = new URL(process.env.BENCH_MODEL_URL!);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req as AsyncIterable<Buffer>) parts.push(part);
    const body = Buffer.concat(parts);
    const headers = { ...req.headers, host: upstream.host, "content-length": String(body.length) };
    http
      .request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      })
      // An upstream that fails before answering is a 502; one that fails mid-answer cuts the answer short.
      .on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()))
      .end(body);
  });
  return { server, close: () => agent.destroy() };
};

export default async function bench(): Promise<BenchResult> {
  const model = await startModelServer();
  // The per-turn figure: the endpoint served here, so that the turn's time holds the console's
  // work and not the scheduling of one more process on 2 cores (0.5-1.5 ms more a turn, measured).
  const local = assistantServices(model.url);
  const { services } = local;
  const server = createNodeServer([{ method: "POST", path: "/api/agui/[agent]", handler: consoleApi(services).agui.run as WebHandler }]);
  const base = await listenLocal(server);
  // The streaming figure: the endpoint in a process of its own, as its users have it.
  const served = await serveInChild(__filename, "assistantRoute", { BENCH_MODEL_URL: model.url });
  const relay = await serveInChild(__filename, "byteRelay", { BENCH_MODEL_URL: model.url });
  try {
    // The same model call the assistant makes, made directly (or through the relay): the same driver, tools and prompt.
    const driver = new OpenAIChatModel({ model: "bench", apiKey: "bench", baseUrl: `${model.url}/v1` });
    const relayed = new OpenAIChatModel({ model: "bench", apiKey: "bench", baseUrl: `${relay.base}/v1` });
    const tools: ToolDescriptor[] = services.registry
      .forTarget("agui")
      .map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema, client: false, spec: tool }));
    const readAnswer = async (text: string, through = driver): Promise<number> => {
      let characters = 0;
      const messages = [{ id: "u", role: "user" as const, content: text }];
      for await (const chunk of through.respond({ system: "bench", messages, tools, signal: new AbortController().signal }))
        if (chunk.type === "text") characters += chunk.delta.length;
      return characters;
    };
    /** How long `fn` takes; its value is checked by `check` once the time is taken. */
    const timed = async <T>(fn: () => Promise<T>, check?: (value: T) => unknown): Promise<number> => {
      const started = performance.now();
      const value = await fn();
      const ms = performance.now() - started;
      check?.(value);
      return ms;
    };

    for (let i = 0; i < 10; i++) {
      await readAnswer("hello");
      answerLength(await aguiRun(base, "hello"));
    }
    const directTurns: number[] = [];
    const consoleTurns: number[] = [];
    for (let i = 0; i < TURN_ROUNDS; i++) {
      directTurns.push(await timed(() => readAnswer("hello")));
      consoleTurns.push(await timed(() => aguiRun(base, "hello"), answerLength));
    }
    const directTurn = median(directTurns);
    const consoleTurn = median(consoleTurns);

    const stream = `/stream ${STREAM_WORDS}`;
    const characters = await readAnswer(stream);
    const seen = answerLength(await aguiRun(served.base, stream));
    if (seen !== characters) throw new Error(`the console streamed ${seen} characters where the model sent ${characters}`);
    for (let i = 0; i < STREAM_WARM_UP; i++) {
      await readAnswer(stream);
      answerLength(await aguiRun(served.base, stream));
      await readAnswer(stream, relayed);
    }
    // The scripted server sends 8 characters per delta: one delta stands for a token here.
    const tokens = Math.round(characters / 8);
    // CPU of each side over the rounds: the console's process, this process while it reads
    // directly (nothing else runs here then), and the model server's (over the three kinds of round).
    let directCpuMicros = 0;
    const [consoleCpuBefore, modelCpuBefore] = [served.cpuSeconds(), model.cpuSeconds()];
    const sameAnswer = (read: number) => {
      if (read !== characters) throw new Error(`the relay passed ${read} characters where the model sent ${characters}`);
    };
    const [directStreamMs, consoleStreamMs, relayStreamMs] = (
      await rotated(STREAM_ROUNDS, [
        () =>
          timed(async () => {
            const before = process.cpuUsage();
            const read = await readAnswer(stream);
            const used = process.cpuUsage(before);
            directCpuMicros += used.user + used.system;
            return read;
          }),
        () => timed(() => aguiRun(served.base, stream), answerLength),
        () => timed(() => readAnswer(stream, relayed), sameAnswer),
      ])
    ).map(median) as [number, number, number];
    const perToken = (cpuMicros: number, runs: number) => cpuMicros / runs / tokens;
    const consoleCpu = perToken((served.cpuSeconds() - consoleCpuBefore) * 1e6, STREAM_ROUNDS);
    const modelCpu = perToken((model.cpuSeconds() - modelCpuBefore) * 1e6, 3 * STREAM_ROUNDS);
    const directCpu = perToken(directCpuMicros, STREAM_ROUNDS);
    const directRate = tokens / (directStreamMs / 1000);
    const consoleRate = tokens / (consoleStreamMs / 1000);
    const relayRate = tokens / (relayStreamMs / 1000);
    return {
      title: "Models: the assistant over AG-UI against the scripted model server (OpenAI Chat Completions)",
      figures: [
        { label: "console's own work per model turn", value: consoleTurn - directTurn, unit: "ms", target: { max: TARGETS.turnMs } },
        { label: "  one-turn AG-UI run (median)", value: consoleTurn, unit: "ms" },
        { label: "  the same model call made directly (median)", value: directTurn, unit: "ms" },
        {
          label: "streaming: tokens/s through the console / read directly",
          value: consoleRate / directRate,
          unit: "x",
          target: { min: TARGETS.ratio },
          note: `${tokens.toLocaleString("en")} tokens of 8 characters`,
        },
        { label: "  through the console", value: Math.round(consoleRate), unit: "tokens/s" },
        { label: "  read directly from the scripted server", value: Math.round(directRate), unit: "tokens/s" },
        {
          label: "  read by the same driver through a relay",
          value: Math.round(relayRate),
          unit: "tokens/s",
          note: "a process that only forwards the bytes",
        },
        { label: "  ratio relay / read directly", value: relayRate / directRate, unit: "x", note: "what one more process costs here" },
        { label: "  ratio console / relay", value: consoleRate / relayRate, unit: "x" },
        // Where a streamed token's CPU goes: three processes share 2 cores through the console, two directly.
        {
          label: "  CPU per token: the console's process",
          value: consoleCpu,
          unit: "µs",
          note: "model driver, AG-UI events, record, socket",
        },
        { label: "  CPU per token: the driver reading directly", value: directCpu, unit: "µs" },
        { label: "  CPU per token: the scripted server writing", value: modelCpu, unit: "µs" },
      ],
    };
  } finally {
    await served.stop();
    await relay.stop();
    server.close();
    local.close();
    model.stop();
  }
}
