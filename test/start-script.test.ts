import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./support/services";

const root = path.resolve(__dirname, "..");

/** Run `npm start`'s script (no install, no build) with `env`; resolves with its exit code and output. */
function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "scripts", "start.mjs"), "--skip-install", "--skip-build"], {
      cwd: root,
      env: { ...process.env, CONSOLE_DB: path.join(tempDir(), "console.db"), LOG_LEVEL: "silent", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("npm start refuses with one clear line before it starts anything", () => {
  it("a bad HOST is named like every other variable", async () => {
    const { code, stdout, stderr } = await start({ HOST: "not a host!" });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('Cannot start: HOST must be an IP address or a host name of this machine (got "not a host!")');
    expect(stdout).not.toContain("AG-UI Console on");
  });

  it("a busy port says so and suggests another PORT", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const { code, stdout, stderr } = await start({ PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `Cannot start: port ${port} on 127.0.0.1 is in use (another console, or another program). Stop it, or choose another port: PORT=${port + 1} npm start`,
      );
      expect(stdout).not.toContain("AG-UI Console on");
      // Each step says what it does as it runs.
      expect(stdout).toMatch(/\[3\/4\] preparing the database[^\n]*\n[\s\S]*\[4\/4\] starting the console on 127\.0\.0\.1:/);
    } finally {
      busy.close();
    }
  });

  it("a HOST that is not an address of this machine says so", async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a machine; nothing is sent there, the bind fails locally.
    const { code, stderr } = await start({ HOST: "192.0.2.1", PORT: "3999" });
    expect(code).toBe(1);
    expect(stderr).toContain("Cannot start: HOST=192.0.2.1 is not an address of this machine (EADDRNOTAVAIL)");
  });

  it("ALLOWED_HOSTS with no host name is refused, and an empty variable is explained", async () => {
    expect((await start({ ALLOWED_HOSTS: ",,," })).stderr.trim()).toBe(
      'Cannot start: ALLOWED_HOSTS lists no host name: give names separated by commas, or unset it (got ",,,")',
    );
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    try {
      const { stdout } = await start({ SEED_DEMO: "", PORT: String((busy.address() as net.AddressInfo).port) });
      expect(stdout).toContain("SEED_DEMO is set but empty: using the default (true).");
    } finally {
      busy.close();
    }
  });
});
