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
    // Spins for 3 ms of its own CPU for each line it is sent (not of wall time: another process
    // may take the core meanwhile), then answers and waits.
    const spinner = child(
      `const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
       process.stdin.on("data", () => { const t = cpu() + 3; while (cpu() < t); process.stdout.write("spun\\n"); });`,
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
    // Its main thread waits while a worker thread spins until the process has used 400 ms of CPU
    // (start-up included, about a tenth of that); both then stay. The main thread alone has only
    // its start-up to show.
    const spinner = child(
      `const { Worker } = require("node:worker_threads");
       new Worker("const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }; while (cpu() < 400); require('node:worker_threads').parentPort.postMessage(1); setInterval(() => {}, 1000);", { eval: true })
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
