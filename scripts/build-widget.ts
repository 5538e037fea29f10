// Bundles the script-tag widget (lib/client/agui-chat-entry.ts: the <agui-chat> element over the
// console's AgentState) into public/embed/widget.js, which the console serves at /embed/widget.js.
// next.config.ts calls buildWidget when Next loads its configuration, so `next build`, `next dev`
// and `npm start` all produce it with no step of their own; esbuild comes with tsx. The output is
// generated, never committed (.gitignore). bench/widget.ts builds it elsewhere to weigh it.
import fs from "node:fs";
import path from "node:path";
import type { Plugin } from "esbuild";

export interface BuildWidgetOptions {
  /** The project's root (default: the working directory, where Next and npm scripts run). */
  root?: string;
  /** Where to write the bundle (default public/embed/widget.js under root). */
  outfile?: string;
  /** Only when there is no bundle yet: a production server does not rewrite what its build made. */
  ifMissing?: boolean;
}

/**
 * Writes the minified bundle and returns its path. Throws esbuild's error when the sources do not
 * bundle (a `next build` then fails, as it should).
 */
export async function buildWidget({ root = process.cwd(), outfile, ifMissing = false }: BuildWidgetOptions = {}): Promise<string> {
  const target = outfile ?? path.join(root, "public", "embed", "widget.js");
  if (ifMissing && fs.existsSync(target)) return target;
  const { build } = await import("esbuild");
  await build({
    entryPoints: [path.join(root, "lib", "client", "agui-chat-entry.ts")],
    outfile: target,
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2020"],
    platform: "browser",
    legalComments: "none",
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [englishZodOnly],
  });
  return target;
}

/**
 * zod (which @ag-ui/core's schemas use to check every event) re-exports all its ~50 message
 * locales as one namespace, so none of them can be shaken out: about half of the bundle. The
 * widget only ever reports in English, zod's default, so its locale index is reduced to English.
 */
const englishZodOnly: Plugin = {
  name: "english-zod-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: path.dirname(args.path),
      loader: "js",
    }));
  },
};
