import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processCpuSeconds } from "@/bench/support/process-cpu";

/** A node process running `script`, which writes a line each time it has done its part. */
function child(script: string) {
  const process_ = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  const line = () => new Promise<void>((resolve) => process_.stdout.once("data", () => resolve()));
  return { pid: process_.pid!, stdin: process_.stdin, line, kill: () => process_.kill() };
}

// The benches read a server's CPU between runs, while it waits: these read a child's while it waits.
describe("bench process CPU", () => {
  it("reads a process's CPU finer than the 10 ms ticks of /proc/PID/stat", async () => {
    // Spins 3 ms for each line it is sent, then answers and waits.
    const spinner = child(
      `process.stdin.on("data", () => { const t = performance.now() + 3; while (performance.now() < t); process.stdout.write("spun\\n"); });`,
    );
    try {
      const steps: number[] = [];
      for (let i = 0; i < 5; i++) {
        const before = processCpuSeconds(spinner.pid);
        spinner.stdin.write("go\n");
        await spinner.line();
        // Until it sleeps, the kernel may not have added its last slice to the count.
        await new Promise((resolve) => setTimeout(resolve, 20));
        steps.push(processCpuSeconds(spinner.pid) - before);
      }
      // In ticks most of these steps of about 3 ms would read 0 and the others 0.01.
      for (const step of steps) expect(step).toBeGreaterThan(0.002);
      expect(Math.min(...steps)).toBeLessThan(0.009);
    } finally {
      spinner.kill();
    }
  });

  it("counts the CPU of every thread of a process, not only its main thread's", async () => {
    // Its main thread waits while a worker thread spins for 400 ms; both then stay.
    const spinner = child(
      `const { Worker } = require("node:worker_threads");
       new Worker("const t = Date.now() + 400; while (Date.now() < t); require('node:worker_threads').parentPort.postMessage(1); setInterval(() => {}, 1000);", { eval: true })
         .once("message", () => process.stdout.write("spun\\n"));`,
    );
    try {
      await spinner.line();
      expect(processCpuSeconds(spinner.pid)).toBeGreaterThan(0.35);
    } finally {
      spinner.kill();
    }
  });
});
