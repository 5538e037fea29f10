import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import type { Change } from "@/lib/db/change-bus";

/** test/support/postgres-instance-process.ts running in a child process. */
export interface InstanceProcess {
  child: ChildProcessWithoutNullStreams;
  listenerPid: number;
  leasePid: number;
  /** The ids of the sources it left importing (its `imports`), in order. */
  importing: string[];
  /** Every change the child heard so far, with the wall-clock ms it heard it at. */
  heard: Array<{ change: Change; at: number }>;
  /** Resolves with the first change heard from now on (or already heard) that `match` accepts. */
  next(match: (change: Change) => boolean, timeoutMs?: number): Promise<{ change: Change; at: number }>;
  /** Close its stdin and wait for it to exit (killed after 5 s). */
  stop(): Promise<void>;
  /** SIGKILL it, as a crash would, and wait until it is gone. */
  kill(): Promise<void>;
  stderr(): string;
}

/**
 * Start a child "console instance" on `url`, holding leases on `runIds` and running an import that
 * never finishes for each name in `imports`; resolves once it is ready.
 */
export function startInstanceProcess(url: string, runIds: string[] = [], imports: string[] = []): Promise<InstanceProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join("test", "support", "postgres-instance-process.ts")], {
    cwd: path.resolve(__dirname, "..", ".."),
    env: { ...process.env, PG_URL: url, RUN_IDS: runIds.join(","), IMPORTS: imports.join(",") },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const heard: Array<{ change: Change; at: number }> = [];
  const waiters = new Set<() => void>();
  return new Promise((resolve, reject) => {
    let buffer = "";
    const instance: Partial<InstanceProcess> = {
      child,
      heard,
      stderr: () => stderr,
      next: (match, timeoutMs = 5_000) =>
        new Promise((found, fail) => {
          let from = 0;
          const check = () => {
            for (; from < heard.length; from++) {
              const entry = heard[from]!;
              if (match(entry.change)) {
                waiters.delete(check);
                clearTimeout(timer);
                found(entry);
                return;
              }
            }
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(new Error(`the child heard no matching change in ${timeoutMs} ms; it heard ${JSON.stringify(heard)}`));
          }, timeoutMs);
          waiters.add(check);
          check();
        }),
      stop: async () => {
        child.stdin.end();
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      },
      kill: async () => {
        child.kill("SIGKILL");
        await exited;
      },
    };
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffer.slice(0, newline)) as {
          ready?: true;
          listenerPid: number;
          leasePid: number;
          importing: string[];
          change?: Change;
          at?: number;
        };
        buffer = buffer.slice(newline + 1);
        if (line.ready)
          resolve(
            Object.assign(instance, {
              listenerPid: line.listenerPid,
              leasePid: line.leasePid,
              importing: line.importing,
            }) as InstanceProcess,
          );
        else if (line.change) {
          heard.push({ change: line.change, at: line.at! });
          for (const waiter of [...waiters]) waiter();
        }
      }
    });
    void exited.then(() => reject(new Error(`the instance process exited before it was ready: ${stderr}`)));
  });
}
