// One bench in the process bench/index.ts started for it: runs the bench, prints its figures, and
// writes them to the file the parent named, which reads them back.
import fs from "node:fs";
import { type Bench, formatFigure } from "./measure";

export async function runOne(name: string, bench: Bench | undefined, resultFile: string): Promise<void> {
  if (typeof bench !== "function") throw new Error(`bench/${name}.ts has no default export`);
  const started = performance.now();
  const returned = await bench();
  const results = Array.isArray(returned) ? returned : [returned];
  for (const result of results) {
    console.log(`${result.title}`);
    if (result.skipped) console.log(`  skipped: ${result.skipped}`);
    for (const figure of result.figures) console.log(formatFigure(figure));
  }
  console.log(`  [${((performance.now() - started) / 1000).toFixed(1)} s]`);
  fs.writeFileSync(resultFile, JSON.stringify(results));
}
