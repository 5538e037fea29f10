// A bench's handler served by the node adapter in a process of its own (./served-handler-child.ts),
// so that two servers timed against each other do not share a heap: in one process, the garbage
// one leaves is collected in the other's time (the MCP bench's bare SDK server ran 15% faster
// once the console's executor stopped setting a timer per call, and its ratio moved by 0.15).
// The process runs a bundle of the handler's module, as production runs Next's (./bench-bundle.ts).
import { spawn } from "node:child_process";
import type http from "node:http";
import path from "node:path";
import { benchBundle } from "./bench-bundle";
import { processCpuSeconds } from "./process-cpu";
import type { WebHandler } from "../../lib/http/node-adapter";

export interface ServedHandler {
  base: string;
  /** CPU seconds the server's process has used so far (user + system, all threads; see processCpuSeconds). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Serve the handler that `factory`, a named export of the module at `modulePath`, makes (see
 * HandlerFactory) on 127.0.0.1 in a child process, with `env` added to its environment (what the
 * factory needs to know, a peer's URL say); resolves with its base URL once it listens.
 */
export async function serveInChild(modulePath: string, factory: string, env: Record<string, string> = {}): Promise<ServedHandler> {
  const bundle = await benchBundle(
    `served-${path.basename(modulePath, ".ts")}`,
    `import * as factories from ${JSON.stringify(modulePath)};\n` +
      `import { serveFactory } from ${JSON.stringify(path.join(__dirname, "served-handler-child.ts"))};\n` +
      `void serveFactory(factories, process.argv[2]);\n`,
    __dirname,
  );
  const child = spawn(process.execPath, [...childFlags(), bundle, factory], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      if (!buffer.includes("\n")) return;
      resolve({
        base: buffer.split("\n")[0]!.trim(),
        cpuSeconds: () => processCpuSeconds(child.pid!),
        stop: async () => {
          child.stdin.end();
          const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`the ${factory} server exited (${code}) before listening`)));
  });
}

/**
 * What a handler module exports for serveInChild: the route and its handler on the node adapter,
 * or a node:http server of its own (a bare route), and what to close after.
 */
export type HandlerFactory = () => Promise<({ path: string; handler: WebHandler } | { server: http.Server }) & { close?: () => void }>;

/**
 * Node flags for the served processes from BENCH_CHILD_FLAGS (space-separated), to profile one of
 * them: `BENCH_CHILD_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench -- agui` leaves a
 * profile per server. NODE_OPTIONS cannot carry --cpu-prof.
 */
function childFlags(): string[] {
  return (process.env.BENCH_CHILD_FLAGS ?? "").split(" ").filter(Boolean);
}
