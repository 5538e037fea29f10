// First-load JavaScript of the console's pages (issue 16): what a browser downloads to show a page
// of the production build, gzipped. Read from the pages themselves as the built console serves
// them: every script the HTML names (`<script src>` but `nomodule` polyfills, and script preloads),
// fetched and gzipped. The chat must stay under 350 KB with CopilotKit in the project: CopilotKit
// belongs to its own page, printed beside it for the comparison. Needs `npm run build` first.
import { gzipSync } from "node:zlib";
import { hasBuild, startBuiltConsole } from "./support/built-console";
import type { BenchResult, Figure } from "./support/measure";

const CHAT_TARGET_KB = 350;

/** The scripts a page's HTML makes the browser load before it can run. */
function scriptsOf(html: string): string[] {
  const sources = new Set<string>();
  for (const match of html.matchAll(/<script\b[^>]*>/g)) {
    const tag = match[0];
    const src = /\bsrc="([^"]+)"/.exec(tag)?.[1];
    // Polyfills for browsers without modules: a modern browser never loads them.
    if (src && !/\bnomodule\b/i.test(tag)) sources.add(src);
  }
  for (const match of html.matchAll(/<link\b[^>]*>/g)) {
    const tag = match[0];
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (href && /\bas="script"/.test(tag)) sources.add(href);
  }
  return [...sources].map((source) => source.replace(/&amp;/g, "&"));
}

async function firstLoad(base: string, page: string): Promise<{ kb: number; scripts: number }> {
  const response = await fetch(`${base}${page}`);
  if (response.status !== 200) throw new Error(`${page} answered ${response.status}`);
  const scripts = scriptsOf(await response.text());
  let bytes = 0;
  for (const script of scripts) {
    const body = await fetch(new URL(script, base));
    if (!body.ok) throw new Error(`${script} answered ${body.status}`);
    bytes += gzipSync(Buffer.from(await body.arrayBuffer())).length;
  }
  return { kb: bytes / 1024, scripts: scripts.length };
}

export default async function benchBundle(): Promise<BenchResult> {
  const title = "First-load JavaScript of the production build's pages (gzipped)";
  if (!hasBuild()) return { title, figures: [], skipped: "no production build: run `npm run build` first" };
  const built = await startBuiltConsole();
  try {
    const figures: Figure[] = [];
    for (const [page, target] of [
      ["/chat", CHAT_TARGET_KB],
      ["/approvals", undefined],
      ["/embed/copilotkit", undefined],
    ] as const) {
      const { kb, scripts } = await firstLoad(built.base, page);
      figures.push({ label: page, value: kb, unit: "KB", ...(target && { target: { max: target } }), note: `${scripts} scripts` });
    }
    return { title, figures };
  } finally {
    await built.stop();
  }
}
