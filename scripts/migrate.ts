// `npm run db:migrate`: apply pending migrations to CONSOLE_DB (default ./data/console.db).
import { ConfigError, loadConfig } from "../lib/config";
import { DatabaseOpenError, KnownDatabases, openDatabase } from "../lib/db";

try {
  const config = loadConfig();
  const known = new KnownDatabases(config.CONSOLE_STATE_DIR);
  // A one-off script may wait for a running console's write to finish: 5 s rather than the console's 250 ms.
  const handle = openDatabase(config.CONSOLE_DB, { known, allowCreate: config.CONSOLE_DB_CREATE, busyTimeoutMs: 5000 });
  console.log(`Migrations applied to ${handle.path}.`);
  handle.close();
  try {
    known.remember(handle.path);
  } catch {
    // The record only guards against a deleted data folder at the next start; prepare.ts says when it cannot be kept.
  }
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseOpenError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
