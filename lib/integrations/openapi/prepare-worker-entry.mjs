// Starts the OpenAPI preparation worker thread. It is plain JavaScript, loaded from disk by path
// (never bundled): Node 20 does not carry `--import tsx` into worker threads, and Next's server
// bundle has no file a worker could start from, so this entry loads the TypeScript body through
// tsx's API, the same way under `next start`, `next dev`, vitest and the benches.
import { tsImport } from "tsx/esm/api";

await tsImport("./prepare-worker.ts", import.meta.url);
