// `npm run dev`: prepare the database, then Next's dev server on 127.0.0.1 (telemetry off, as for start and test).
import path from "node:path";
import { prepareDatabase, root, startChild } from "./setup.mjs";

prepareDatabase();
const port = process.env.PORT || "3000";
const code = await startChild(
  process.execPath,
  [path.join(root, "node_modules", "next", "dist", "bin", "next"), "dev", "-H", "127.0.0.1", "-p", port],
  {
    env: { NEXT_TELEMETRY_DISABLED: "1" },
  },
);
process.exit(code);
