// Checks the configuration, applies migrations and seeds the demo tools, then exits.
// `npm start` runs it before serving so that a bad setting stops start-up with one clear line.
import { ConfigError, configNotes, loadConfig } from "../lib/config";
import { DatabaseOpenError, KnownDatabases } from "../lib/db";
import { createServices } from "../lib/services";

try {
  const config = loadConfig();
  for (const note of configNotes()) console.log(`      ${note}`);
  const services = createServices(config);
  console.log(`      database ready at ${services.database.path} (${services.registry.count()} tools)`);
  remember(new KnownDatabases(config.CONSOLE_STATE_DIR), services.database.path);
  services.close();
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseOpenError) {
    console.error(`Cannot start: ${error.message}`);
    process.exit(1);
  }
  throw error;
}

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
