// A console instance in a process of its own (./console-instance-child.ts: the node adapter over
// openServices, serving the AG-UI and approvals routes on 127.0.0.1), for benches that must not
// share their process with the server they time.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { processCpuSeconds } from "./process-cpu";

export interface Instance {
  url: string;
  pid: number;
  /** CPU seconds the process used so far (user + system). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Start an instance with `env` added (DATABASE_URL or CONSOLE_DB says its database) and resolve
 * once it listens. Rejects with its standard error when it exits before that.
 */
export function startInstance(env: Record<string, string>): Promise<Instance> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--import", "tsx", path.join(__dirname, "console-instance-child.ts")],
    {
      env: { ...process.env, DATABASE_URL: "", CONSOLE_DB: "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split("\n")[0];
      if (!buffer.includes("\n") || !line) return;
      const { url, pid } = JSON.parse(line) as { url: string; pid: number };
      resolve({
        url,
        pid,
        cpuSeconds: () => processCpuSeconds(pid),
        stop: async () => {
          child.stdin.end();
          const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`a console instance exited (${code}) before listening: ${stderr}`)));
  });
}
