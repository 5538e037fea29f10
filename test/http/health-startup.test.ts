import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { route } from "@/lib/api";
import { tempDir } from "../support/services";

const saved = process.env.CONSOLE_DB;
afterEach(() => {
  if (saved === undefined) delete process.env.CONSOLE_DB;
  else process.env.CONSOLE_DB = saved;
  vi.restoreAllMocks();
});

describe("a route whose services cannot open the database", () => {
  it("answers 503 database_unavailable (not 500), keeps the path out of the answer and logs the reason", async () => {
    const plainFile = path.join(tempDir(), "plain-file");
    fs.writeFileSync(plainFile, "x");
    process.env.CONSOLE_DB = path.join(plainFile, "console.db");
    const logged: unknown[] = [];
    vi.spyOn(console, "error").mockImplementation((...args) => void logged.push(...args));
    const health = route((api) => api.health.get);
    const response = await health(new Request("http://127.0.0.1:3000/api/health", { headers: { host: "127.0.0.1:3000" } }));
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(text).not.toContain(plainFile);
    expect(JSON.parse(text)).toEqual({
      error: { code: "database_unavailable", message: "The console cannot open its database; the server log says why" },
    });
    expect(String(logged[0])).toContain(`CONSOLE_DB: cannot open the database at ${path.join(plainFile, "console.db")}`);
  });
});
