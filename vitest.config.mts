import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    environment: "node",
    pool: "forks",
    // A PostgreSQL server for the files that ask for one, started on the first ask (test/support/postgres.ts).
    globalSetup: ["test/support/postgres-global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
