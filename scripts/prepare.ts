// Checks the configuration, applies migrations and seeds the demo tools, then exits.
// `npm start` runs it before serving so that a bad setting stops start-up with one clear line.
import { ConfigError, configNotes, loadConfig } from "../lib/config";
import { DatabaseOpenError, KnownDatabases } from "../lib/db";
import { PostgresOpenError } from "../lib/db/postgres/open";
import { openServices } from "../lib/services";

async function main(): Promise<void> {
  const config = loadConfig();
  for (const note of configNotes()) console.log(`      ${note}`);
  const services = await openServices(config);
  const { database } = services.storage;
  if (database) {
    console.log(`      database ready at ${database.path} (${services.registry.count()} tools)`);
    remember(new KnownDatabases(config.CONSOLE_STATE_DIR), database.path);
  } else console.log(`      PostgreSQL database ready (DATABASE_URL; ${services.registry.count()} tools)`);
  services.close();
}

// tsx runs this file as CommonJS, where a top-level await is refused.
main().then(
  // The PostgreSQL connections close in the background: nothing is left to wait for.
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof DatabaseOpenError || error instanceof PostgresOpenError) {
      console.error(`Cannot start: ${error.message}`);
      process.exit(1);
    }
    console.error(error);
    process.exit(1);
  },
);

/**
 * Record that a console starts on this database, so that a later start refuses to replace it
 * with an empty one if its folder disappears. The record is a safety net: when the state folder
 * cannot be written the console still starts, and says the net is missing.
 */
function remember(known: KnownDatabases, file: string): void {
  try {
    known.remember(file);
  } catch (error) {
    console.log(
      `      could not record the database in ${known.file} (${(error as Error).message}): ` +
        "a deleted data folder would not be noticed at the next start. Set CONSOLE_STATE_DIR to a writable folder.",
    );
  }
}
