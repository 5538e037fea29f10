import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFuzzServices, runInProcessPass, type FuzzServices, type PassResult } from "./in-process-pass";
import { fuzzIterations, fuzzSeed } from "./random";

// The in-process fuzz pass (issue 11): every endpoint of the API, called as Next calls it, with
// random and adversarial requests. `npm test` runs a short pass; `npm run fuzz` a long one
// (FUZZ_ITERATIONS). A failure names its seed: FUZZ_SEED=<seed> replays the same requests.

const seed = fuzzSeed();
const perEndpoint = fuzzIterations(40);
/** The heap may grow this much between the two halves of the pass (caches, JIT, SQLite statements). */
const HEAP_SLACK_BYTES = 48 * 1024 * 1024;

describe(`the in-process fuzz pass (FUZZ_SEED=${seed}, ${perEndpoint} requests per endpoint)`, () => {
  let fuzz: FuzzServices;
  let result: PassResult;
  beforeAll(() => {
    fuzz = openFuzzServices();
  });
  afterAll(() => fuzz.close());

  it(
    "answers every request below 500, refusals with a JSON error body, and a refused request writes nothing",
    async () => {
      result = await runInProcessPass(fuzz, seed, perEndpoint);
      console.log(
        `fuzz: seed ${seed}, ${result.requests} requests in ${result.ms} ms, statuses ${JSON.stringify(result.statuses)}` +
          (result.unsendable ? `, ${result.unsendable} unsendable skipped` : "") +
          `; slowest endpoints (ms): ${Object.entries(result.time)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 4)
            .map(([key, ms]) => `${key} ${ms}`)
            .join(", ")}`,
      );
      expect(result.requests).toBeGreaterThan(0);
      expect(summarise(result), `replay with FUZZ_SEED=${seed}`).toEqual([]);
    },
    // A long pass (npm run fuzz) takes as long as it takes; the short one stays well under this.
    Math.max(120_000, perEndpoint * 30 * 200),
  );

  it("leaves no run running and the console healthy", () => {
    expect(result, "the pass above did not finish").toBeDefined();
    expect(result.running, `replay with FUZZ_SEED=${seed}`).toEqual([]);
    expect(result.health.status, result.health.body).toBe(200);
    expect(JSON.parse(result.health.body)).toMatchObject({ ok: true, db: { ok: true } });
  });

  it("keeps the heap stable between the first and the second half of the pass", () => {
    expect(result, "the pass above did not finish").toBeDefined();
    const [first, second] = result.heap;
    expect(second - first, `heap ${mb(first)} -> ${mb(second)}; replay with FUZZ_SEED=${seed}`).toBeLessThan(HEAP_SLACK_BYTES);
  });
});

/** Findings grouped by kind, endpoint and first line of detail, with up to two examples each, for a readable failure. */
function summarise(result: PassResult): string[] {
  const groups = new Map<string, string[]>();
  for (const f of result.findings) {
    const key = `${f.kind} at ${f.endpoint}: ${f.detail.split("\n")[0]!.slice(0, 160)}`;
    const examples = groups.get(key) ?? [];
    if (examples.length < 2) examples.push([f.request ?? "", ...(f.log ?? []).map((line) => `log: ${line}`)].join("\n  "));
    groups.set(key, examples);
  }
  return [...groups].map(([key, examples]) => `${key}\n  ${examples.join("\n  ---\n  ")}`);
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
