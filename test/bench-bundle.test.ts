import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { benchBundle } from "@/bench/support/bench-bundle";

describe("bench bundles", () => {
  it("run under plain node, each project file with its own __dirname and __filename, packages required at run time", async () => {
    const fixture = path.join(__dirname, "support", "own-dirname.ts");
    const bundle = await benchBundle(
      "test-own-paths",
      `import { here, file } from ${JSON.stringify(fixture)};\n` +
        // A package left out of the bundle, found from the bundle's place in the project.
        `import Database from "better-sqlite3";\n` +
        `const db = new Database(":memory:");\n` +
        `console.log(JSON.stringify({ here, file, one: db.prepare("select 1 as one").get().one }));\n`,
      __dirname,
    );
    const printed = JSON.parse(execFileSync(process.execPath, [bundle], { encoding: "utf8" })) as Record<string, unknown>;
    expect(printed).toEqual({ here: path.dirname(fixture), file: fixture, one: 1 });
  });
});
