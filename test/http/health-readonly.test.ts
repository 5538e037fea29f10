import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/services";

const root = path.resolve(__dirname, "../..");
// Root may write any file whatever its mode: as root, the console runs as nobody so that a
// read-only file is read-only for it.
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

interface Started {
  url?: string;
  code?: number | null;
  stderr: string;
  stop(): Promise<void>;
}

const running: Started[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) await child.stop();
});

/** test/support/storage-server.ts on `file`, resolved once it listens or exits. */
function startConsole(file: string, stateDir: string): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join("test", "support", "storage-server.ts")], {
    cwd: root,
    env: { ...process.env, CONSOLE_DB: file, CONSOLE_STATE_DIR: stateDir, LOG_LEVEL: "silent", HOME: stateDir },
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const started: Started = {
    stderr: "",
    stop: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  running.push(started);
  child.stderr.on("data", (chunk: Buffer) => (started.stderr += chunk.toString()));
  return new Promise((resolve) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n")[0];
      if (stdout.includes("\n") && line) resolve(Object.assign(started, { url: (JSON.parse(line) as { url: string }).url }));
    });
    void exited.then((code) => resolve(Object.assign(started, { code })));
  });
}

describe("a database file made read-only", () => {
  it(
    "health answers 503 naming the fault while the console runs, and a restart refuses to start read-only",
    { timeout: 90_000 },
    async () => {
      const base = tempDir();
      const dataDir = path.join(base, "data");
      const stateDir = path.join(base, "state");
      fs.mkdirSync(dataDir);
      fs.mkdirSync(stateDir);
      // The console's user (nobody, when the test runs as root) may reach and write both folders.
      for (const dir of [base, dataDir, stateDir]) fs.chmodSync(dir, 0o777);
      const file = path.join(dataDir, "console.db");

      const first = await startConsole(file, stateDir);
      expect(first.stderr).toBe("");
      expect(first.url).toBeDefined();
      expect((await fetch(`${first.url}/api/health`)).status).toBe(200);

      fs.chmodSync(file, 0o444);
      const health = await fetch(`${first.url}/api/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        ok: false,
        db: { ok: false, fault: "not_writable", error: expect.stringMatching(/no longer writable/) },
      });
      await first.stop();

      // SQLite would open the file read-only without a word, and every write would fail: start-up says so instead.
      const second = await startConsole(file, stateDir);
      expect(second.url).toBeUndefined();
      expect(second.code).toBe(3);
      expect(second.stderr.trim()).toBe(
        `CONSOLE_DB: cannot use the database at ${file}: the database is read-only for the console's user: writes fail. ` +
          "Restore write access to its file and folder",
      );
    },
  );
});
