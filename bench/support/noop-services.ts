// The console's services as the benches open them: a throw-away SQLite database (for the MCP and
// A2A benches with one no-op tool registered).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../lib/config";
import { createServices } from "../../lib/services";
import { NOOP } from "./noop-tool";

/** The console's services over SQLite, as the benches open them. */
export type BenchServices = ReturnType<typeof createServices>;

/**
 * Services over a throw-away database, configured by `env` besides; `close` removes it all. The
 * state folder is the throw-away one too: in the operator's own, every bench process would take a
 * place on the list of known databases (KnownDatabases keeps the 200 latest).
 */
export function throwAwayServices(env: Record<string, string> = {}): { services: BenchServices; close: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  const services = createServices(
    loadConfig({ CONSOLE_DB: path.join(dir, "bench.db"), CONSOLE_STATE_DIR: dir, LOG_LEVEL: "silent", ...env }),
  );
  return {
    services,
    close: () => {
      services.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Throw-away services with the no-op registered. */
export async function noopServices(): Promise<{ services: BenchServices; close: () => void }> {
  const opened = throwAwayServices();
  await opened.services.registry.add(NOOP, () => ({}));
  return opened;
}
