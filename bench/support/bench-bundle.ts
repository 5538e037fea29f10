// The bench's servers run bundled, as the console runs in production. Next bundles the console's
// code and its packages into a few chunks; tsx instead loads each TypeScript file as a module of its
// own, and each of those modules' exports objects takes one transition out of V8's map for plain
// objects ({}), which holds at most 1,536. The ~2,500 modules the console's handlers load through
// tsx leave that map with about 1,370; the console's services then fill it, and from then on an
// object built property by property gets a new map each time instead of a shared one: every
// request creates maps, property access turns megamorphic, scavenges keep more. Measured with
// `--allow-natives-syntax` (%DebugPrint({})): a bare SDK server answered the MCP no-op with 292 µs of
// CPU a call below the cap and 435 µs in the same process once two small tool schemas had been
// compiled past it; the console's handler took 587 µs through tsx and 430 µs bundled (802 of the
// 1,536 taken). The production server (`npm start`) holds about 1,270 after its main routes.
import fs from "node:fs";
import path from "node:path";

/** Where bench bundles are written (gitignored with the rest of bench/.out). */
const OUT_DIR = path.join(__dirname, "..", ".out", "bundles");
const ROOT = path.join(__dirname, "..", "..");
/** Packages left to node_modules, as next.config.ts leaves them: native addons and the bundler itself. */
const EXTERNAL = ["better-sqlite3", "pg", "esbuild"];

const built = new Map<string, Promise<string>>();

/**
 * One ES module bundling `source` (TypeScript, resolved from `resolveDir`) with everything it
 * imports, built once per process under `name`; resolves with its path.
 */
export function benchBundle(name: string, source: string, resolveDir: string): Promise<string> {
  let bundle = built.get(name);
  if (!bundle) {
    bundle = build(name, source, resolveDir);
    built.set(name, bundle);
  }
  return bundle;
}

async function build(name: string, source: string, resolveDir: string): Promise<string> {
  const { build: esbuild } = await import("esbuild");
  const outfile = path.join(OUT_DIR, `${name}.mjs`);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  await esbuild({
    stdin: { contents: source, resolveDir, loader: "ts", sourcefile: `${name}.ts` },
    absWorkingDir: ROOT,
    bundle: true,
    outfile,
    format: "esm",
    platform: "node",
    target: ["node20"],
    logLevel: "warning",
    external: EXTERNAL,
    alias: { "@": ROOT },
    // Bundled CommonJS packages require Node's own modules, which an ES module does through createRequire.
    banner: { js: 'import { createRequire as __benchRequire } from "node:module"; const require = __benchRequire(import.meta.url);' },
  });
  return outfile;
}
