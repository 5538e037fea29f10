// Node 20 does not apply `--import tsx` (module.register hooks) inside worker threads, so a
// worker starts here, in plain JS, and loads its TypeScript entry through tsx's API.
import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.entry, import.meta.url);
