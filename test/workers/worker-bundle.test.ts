import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WORKER_DIR, workerBundleStale } from "@/lib/workers/worker-bundle";

// A worker bundle is rebuilt when one of the files it was made from changed after it: the list of
// those files sits beside the bundle (NAME.inputs.json), and each is stated (without blocking the
// event loop: the OpenAPI worker's list holds hundreds).

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "worker-bundle-"));
  fs.mkdirSync(path.join(root, WORKER_DIR));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A bundle made at `builtAt` (seconds) from `sources`, each a file changed at its time. */
function built(builtAt: number, sources: Record<string, number>, listed = Object.keys(sources)): void {
  for (const [name, changedAt] of Object.entries(sources)) {
    fs.writeFileSync(path.join(root, name), "");
    fs.utimesSync(path.join(root, name), changedAt, changedAt);
  }
  const bundle = path.join(root, WORKER_DIR, "openapi-prepare.mjs");
  fs.writeFileSync(bundle, "");
  fs.utimesSync(bundle, builtAt, builtAt);
  fs.writeFileSync(path.join(root, WORKER_DIR, "openapi-prepare.inputs.json"), JSON.stringify(listed.map((name) => path.join(root, name))));
}

describe("workerBundleStale", () => {
  it("is false while every source is older than the bundle", async () => {
    built(2_000_000, { "a.ts": 1_000_000, "b.ts": 1_500_000 });
    expect(await workerBundleStale("openapi-prepare", root)).toBe(false);
  });

  it("is true once one source changed after the bundle", async () => {
    built(2_000_000, { "a.ts": 1_000_000, "b.ts": 2_500_000 });
    expect(await workerBundleStale("openapi-prepare", root)).toBe(true);
  });

  it("ignores a source that is gone, and is true when the bundle or its list is missing", async () => {
    built(2_000_000, { "a.ts": 1_000_000 }, ["a.ts", "gone.ts"]);
    expect(await workerBundleStale("openapi-prepare", root)).toBe(false);
    fs.rmSync(path.join(root, WORKER_DIR, "openapi-prepare.inputs.json"));
    expect(await workerBundleStale("openapi-prepare", root)).toBe(true);
    built(2_000_000, { "a.ts": 1_000_000 });
    fs.rmSync(path.join(root, WORKER_DIR, "openapi-prepare.mjs"));
    expect(await workerBundleStale("openapi-prepare", root)).toBe(true);
  });
});
