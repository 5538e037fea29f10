// The script-tag widget's weight (issue 16): /embed/widget.js as the console builds it, minified
// and gzipped, the bytes a page that embeds <agui-chat> downloads. No target: the issue asks for it
// to be printed, and far lighter than CopilotKit.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { buildWidget } from "../scripts/build-widget";
import type { BenchResult } from "./support/measure";

export default async function benchWidget(): Promise<BenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-widget-"));
  try {
    const file = await buildWidget({ root: path.resolve(__dirname, ".."), outfile: path.join(dir, "widget.js") });
    const bytes = fs.readFileSync(file);
    return {
      title: "script-tag widget (/embed/widget.js)",
      figures: [
        { label: "widget.js gzipped", value: gzipSync(bytes, { level: 9 }).length / 1024, unit: "KB" },
        { label: "  minified", value: bytes.length / 1024, unit: "KB" },
      ],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
