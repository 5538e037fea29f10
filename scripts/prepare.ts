// Checks the configuration, applies migrations and seeds the demo tools, then exits.
// `npm start` runs it before serving so that a bad setting stops start-up with one clear line.
import { ConfigError, configNotes, loadConfig } from "../lib/config";
import { DatabaseOpenError } from "../lib/db";
import { createServices } from "../lib/services";

try {
  const config = loadConfig();
  for (const note of configNotes()) console.log(`      ${note}`);
  const services = createServices(config);
  console.log(`      database ready at ${services.database.path} (${services.registry.count()} tools)`);
  services.close();
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseOpenError) {
    console.error(`Cannot start: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
