// The console's services as the MCP and A2A benches open them: a throw-away SQLite database with
// one no-op tool registered.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../lib/config";
import { createServices } from "../../lib/services";

export const NOOP = {
  name: "noop",
  description: "Does nothing",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: { type: "object", properties: {} },
};

/** The console's services over SQLite, as the benches open them. */
export type BenchServices = ReturnType<typeof createServices>;

/** Services over a throw-away database with the no-op registered; `close` removes it all. */
export async function noopServices(): Promise<{ services: BenchServices; close: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  const services = createServices(loadConfig({ CONSOLE_DB: path.join(dir, "bench.db"), LOG_LEVEL: "silent" }));
  await services.registry.add(NOOP, () => ({}));
  return {
    services,
    close: () => {
      services.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
