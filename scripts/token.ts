// `npm run token -- create NAME [--scopes agui,approvals] [--origins https://app.example.com]` prints a
// new API token once (--origins: pages there may use it from a browser, besides CORS_ORIGINS);
// `npm run token -- list` lists tokens (never the tokens themselves); `npm run token -- revoke ID|NAME`.
import { TOKEN_SCOPES, TokenError, TokenStore } from "../lib/auth/tokens";
import { ConfigError, loadConfig } from "../lib/config";
import { DatabaseOpenError, openDatabase } from "../lib/db";

const USAGE = `Usage:
  npm run token -- create NAME [--scopes ${TOKEN_SCOPES.join(",")}] [--origins https://app.example.com,...]
      (default scope: agui; --origins: the origins whose pages may use the token from a browser, besides CORS_ORIGINS)
  npm run token -- list
  npm run token -- revoke ID|NAME`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help") {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  const handle = openDatabase(loadConfig().CONSOLE_DB);
  const tokens = new TokenStore(handle.db);
  try {
    switch (command) {
      case "create": {
        // The first word that is neither a flag nor a flag's value.
        const name = rest.find((a, i) => !a.startsWith("--") && !["--scopes", "--origins"].includes(rest[i - 1] ?? ""));
        if (!name) {
          console.error(USAGE);
          return 1;
        }
        const scopesFlag = rest.indexOf("--scopes");
        const scopes =
          scopesFlag === -1
            ? ["agui"]
            : (rest[scopesFlag + 1] ?? "")
                .split(",")
                .map((s) => s.trim())
                .filter(Boolean);
        const originsFlag = rest.indexOf("--origins");
        const origins = originsFlag === -1 ? [] : (rest[originsFlag + 1] ?? "").split(",");
        if (originsFlag !== -1 && !origins.some((o) => o.trim()))
          throw new TokenError("--origins needs origins, e.g. --origins https://app.example.com");
        const { token, info } = await tokens.create(name, scopes, { origins });
        console.log(token);
        const from = info.origins ? `; pages of ${info.origins.join(", ")} may use it` : "";
        console.error(`Created token "${info.name}" (${info.scopes.join(", ")}${from}). It is shown only now: keep it somewhere safe.`);
        return 0;
      }
      case "list": {
        const all = await tokens.list();
        if (!all.length) console.log("No tokens.");
        for (const t of all)
          console.log(
            `${t.id}  ${t.name.padEnd(20)} ${t.scopes.join(",").padEnd(28)} ${t.revokedAt ? "revoked" : "active "}  last used ${t.lastUsedAt ? new Date(t.lastUsedAt).toISOString() : "never"}${t.origins ? `  origins ${t.origins.join(",")}` : ""}`,
          );
        return 0;
      }
      case "revoke": {
        const target = rest[0];
        if (!target) {
          console.error(USAGE);
          return 1;
        }
        const count = await tokens.revoke(target);
        if (!count) {
          console.error(`No active token with id or name "${target}".`);
          return 1;
        }
        console.log(`Revoked ${count} token${count === 1 ? "" : "s"}.`);
        return 0;
      }
      default:
        console.error(USAGE);
        return 1;
    }
  } finally {
    handle.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof TokenError || error instanceof ConfigError || error instanceof DatabaseOpenError) {
      console.error(error.message);
      process.exitCode = 1;
    } else throw error;
  },
);
