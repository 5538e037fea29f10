import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@/lib/config";
import { createServices, type SqliteServices } from "@/lib/services";

const made = new Set<string>();
process.once("exit", () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the test process exits. */
export function tempDir(prefix = "agui-console-test-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Services over a real SQLite file in a temporary directory, with the demo tools seeded. */
export function testServices(env: Record<string, string> = {}): SqliteServices {
  const file = env.CONSOLE_DB ?? path.join(tempDir(), "console.db");
  return createServices(loadConfig({ LOG_LEVEL: "silent", ...env, CONSOLE_DB: file }));
}
