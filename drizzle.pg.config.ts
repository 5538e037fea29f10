import { defineConfig } from "drizzle-kit";

// The PostgreSQL twin of drizzle.config.ts: its own schema file and migrations folder
// (`npm run db:generate:pg`). Both paths stay relative: drizzle-kit 0.31 breaks on an absolute `out`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/schema.pg.ts",
  out: "./drizzle-pg",
});
