// `npm start`: install what is missing, build when stale, prepare the database, serve the console.
// Flags (for the test runner): --skip-install, --skip-build.
import path from "node:path";
import { ensureBuild, ensureDependencies, prepareDatabase, root, startChild } from "./setup.mjs";

const flags = new Set(process.argv.slice(2));
if (!flags.has("--skip-install")) ensureDependencies();
if (!flags.has("--skip-build")) ensureBuild();
prepareDatabase();

const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
console.log(`AG-UI Console on http://${host.includes(":") ? `[${host}]` : host}:${port}`);
const code = await startChild(
  process.execPath,
  [path.join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-H", host, "-p", port],
  {
    env: { NEXT_TELEMETRY_DISABLED: "1" },
  },
);
process.exit(code);
