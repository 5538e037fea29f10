// Worker threads run one self-contained ES module each, bundled by esbuild from a TypeScript
// entry in lib/ into .workers/ (gitignored, never served). next.config.ts builds them whenever
// Next loads its configuration (`next build`, `next dev`, `npm start`); anywhere else (vitest,
// tsx, the benches) workerBundle builds one on first use when it is missing or older than any of
// its sources, so a worker always runs the code as it is on disk. The files are found at run time
// (turbopackIgnore): Next's server bundle neither traces nor copies them.
import fs from "node:fs";
import path from "node:path";

/** The worker threads the console starts, by name: the TypeScript entry each is bundled from, under the project's root. */
export const WORKER_ENTRIES = {
  "openapi-prepare": "lib/integrations/openapi/prepare-worker.ts",
  "wal-checkpoint": "lib/db/checkpoint-worker.ts",
} as const;

/**
 * Packages a bundle loads from node_modules at run time instead of containing: better-sqlite3
 * finds its compiled addon relative to its own files.
 */
const EXTERNAL_PACKAGES = ["better-sqlite3"];

export type WorkerName = keyof typeof WORKER_ENTRIES;

/** Where bundles are written, under the project's root. */
export const WORKER_DIR = ".workers";

/** The bundle's output and the list of the files it was bundled from (to see when it is stale). */
function outputsOf(root: string, name: WorkerName): { bundle: string; inputs: string } {
  const dir = path.join(root, WORKER_DIR);
  return { bundle: path.join(dir, `${name}.mjs`), inputs: path.join(dir, `${name}.inputs.json`) };
}

/**
 * Bundle the worker `name` into one ES module under `root` and resolve with its path. The file is
 * written under a temporary name and renamed, so a process reading it meanwhile never sees half of
 * it. Rejects with esbuild's error when the sources do not bundle.
 */
export async function buildWorkerBundle(name: WorkerName, root = process.cwd()): Promise<string> {
  const { bundle, inputs } = outputsOf(root, name);
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [path.join(/*turbopackIgnore: true*/ root, WORKER_ENTRIES[name])],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    target: ["node20"],
    legalComments: "none",
    logLevel: "warning",
    external: EXTERNAL_PACKAGES,
    // Bundled CommonJS packages require Node's own modules, which an ES module does through createRequire.
    banner: { js: 'import { createRequire as __workerRequire } from "node:module"; const require = __workerRequire(import.meta.url);' },
  });
  fs.mkdirSync(/*turbopackIgnore: true*/ path.dirname(bundle), { recursive: true });
  const suffix = `.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(/*turbopackIgnore: true*/ bundle + suffix, result.outputFiles[0]!.contents);
  fs.writeFileSync(
    /*turbopackIgnore: true*/ inputs + suffix,
    JSON.stringify(Object.keys(result.metafile.inputs).map((file) => path.resolve(root, file))),
  );
  fs.renameSync(/*turbopackIgnore: true*/ inputs + suffix, inputs);
  fs.renameSync(/*turbopackIgnore: true*/ bundle + suffix, bundle);
  return bundle;
}

/** Build every worker bundle; with `ifMissing`, only those not built yet (a production server keeps what its build made). */
export async function buildWorkerBundles({
  root = process.cwd(),
  ifMissing = false,
}: { root?: string; ifMissing?: boolean } = {}): Promise<void> {
  for (const name of Object.keys(WORKER_ENTRIES) as WorkerName[]) {
    if (ifMissing && fs.existsSync(/*turbopackIgnore: true*/ outputsOf(root, name).bundle)) continue;
    await buildWorkerBundle(name, root);
  }
}

/**
 * Whether the bundle is missing, or older than one of the files it was made from that still exists.
 * Asynchronous: a bundle is made from hundreds of files (561 for the OpenAPI worker), and stating
 * them one after another held a server's event loop 10-15 ms at its first import.
 */
export async function workerBundleStale(name: WorkerName, root = process.cwd()): Promise<boolean> {
  const { bundle, inputs } = outputsOf(root, name);
  let built: number;
  let sources: unknown;
  try {
    built = (await fs.promises.stat(/*turbopackIgnore: true*/ bundle)).mtimeMs;
    sources = JSON.parse(await fs.promises.readFile(/*turbopackIgnore: true*/ inputs, "utf8"));
  } catch {
    return true;
  }
  if (!Array.isArray(sources)) return true;
  const newer = await Promise.all(
    sources.map(async (file) => {
      if (typeof file !== "string") return false;
      try {
        return (await fs.promises.stat(/*turbopackIgnore: true*/ file)).mtimeMs > built;
      } catch {
        return false;
      }
    }),
  );
  return newer.includes(true);
}

const ready = new Map<WorkerName, Promise<string>>();

/**
 * The path of the worker bundle `name`, built first when it is missing or stale (checked once per
 * process). When a rebuild fails but a bundle exists (a read-only install, say), that one is used.
 * Rejects when there is no bundle and none can be built.
 */
export function workerBundle(name: WorkerName, root = process.cwd()): Promise<string> {
  let found = ready.get(name);
  if (!found) {
    const { bundle } = outputsOf(root, name);
    found = workerBundleStale(name, root).then((stale) =>
      stale
        ? buildWorkerBundle(name, root).catch((error: unknown) => {
            if (fs.existsSync(/*turbopackIgnore: true*/ bundle)) return bundle;
            throw new Error(`The ${name} worker is not built and cannot be: ${error instanceof Error ? error.message : String(error)}`);
          })
        : bundle,
    );
    // A failed build is tried again on the next use.
    found.catch(() => ready.delete(name));
    ready.set(name, found);
  }
  return found;
}
