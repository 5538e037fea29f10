// `npm run db:migrate`: apply pending migrations to CONSOLE_DB (default ./data/console.db).
import { ConfigError, loadConfig } from "../lib/config";
import { DatabaseOpenError, openDatabase } from "../lib/db";

try {
  const handle = openDatabase(loadConfig().CONSOLE_DB);
  console.log(`Migrations applied to ${handle.path}.`);
  handle.close();
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseOpenError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
