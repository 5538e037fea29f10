import { execFileSync } from "node:child_process";
import path from "node:path";

/** The database of the console the specs run against (playwright.config's webServer uses the same). */
const database = process.env.CONSOLE_DB ?? "./data/e2e.db";

/** A new API token with `scopes`, made as an operator makes one: `npm run token -- create`. */
export function createToken(name: string, scopes: readonly string[]): string {
  const tsx = path.join("node_modules", ".bin", "tsx");
  const out = execFileSync(tsx, ["scripts/token.ts", "create", name, "--scopes", scopes.join(",")], {
    env: { ...process.env, CONSOLE_DB: database, LOG_LEVEL: "silent" },
    encoding: "utf8",
  });
  return out.trim().split("\n").at(-1)!.trim();
}
