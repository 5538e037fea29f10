import { afterAll, describe, expect, it } from "vitest";
import { generatedDocument } from "@/bench/support/generated-openapi";
import { SourceStore } from "@/lib/db/sources";
import { importOpenApi, loadOpenApiDocument, planOpenApiTools } from "@/lib/integrations/openapi";
import { validateDocument } from "@/lib/integrations/openapi/validate-document";
import { silentLogger } from "@/lib/log";
import { OutboundGuard } from "@/lib/net";
import { ToolRegistry } from "@/lib/tools/registry";
import { countRows, freshDatabase } from "../support/database";

const handle = freshDatabase();
const registry = new ToolRegistry(handle.db);
const sources = new SourceStore(handle.db);
const outbound = new OutboundGuard();
const deps = { registry, sources, logger: silentLogger, outbound };
afterAll(() => handle.close());

/** The largest lateness of a timer asked to fire every 10 ms while `work` runs. */
async function worstTimerDelay<T>(work: () => Promise<T>): Promise<{ result: T; worstMs: number; ticks: number }> {
  let worstMs = 0;
  let ticks = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worstMs = Math.max(worstMs, now - last - 10);
    last = now;
    ticks++;
  }, 10);
  try {
    const result = await work();
    return { result, worstMs, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe("a 5,000-operation import keeps the event loop responsive", () => {
  const text = JSON.stringify(generatedDocument(5_000));

  it("a timer every 10 ms never fires more than 100 ms late, and the tools are those planned in-thread", async () => {
    // The worker starts (and loads its modules) on first use: warm it with a small document first.
    await importOpenApi(deps, { text: JSON.stringify(generatedDocument(2)) }, { prefix: "warm_" });
    const { result, worstMs, ticks } = await worstTimerDelay(() => importOpenApi(deps, { text }, { prefix: "gen_" }));
    expect(ticks).toBeGreaterThan(10);
    expect(worstMs).toBeLessThan(100);

    // The same document planned on this thread, as the import did before it moved to a worker.
    const loaded = await loadOpenApiDocument({ text });
    const skipped = await validateDocument(loaded.document);
    const plan = planOpenApiTools(loaded, { prefix: "gen_" });
    expect(result.warnings).toEqual([...(skipped ? [skipped] : []), ...plan.warnings]);
    expect(result.tools).toHaveLength(5_000);
    const expected = registry.addMany(plan.operations.map((op) => ({ spec: { ...op.spec, name: `x${op.spec.name}`, sourceId: null } })));
    const strip = ({ name: _n, sourceId: _s, createdAt: _c, updatedAt: _u, digest: _d, ...rest }: (typeof expected)[number]) => rest;
    expect(result.tools.map(strip)).toEqual(expected.map(strip));
    expect(result.tools.map((tool) => tool.name)).toEqual(plan.operations.map((op) => op.spec.name));
    expect(countRows(handle, "tools", "source_id = ?", result.source.id)).toBe(5_000);
    expect(sources.document(result.source.id)).toBe(JSON.stringify(loaded.document));
  }, 120_000);

  it("an invalid document fails on the worker with the validator's reasons, and changes nothing", async () => {
    const document = generatedDocument(600) as { paths: Record<string, { get: { responses: unknown } }> };
    document.paths["/resources7/{id}"]!.get.responses = 5;
    const tools = countRows(handle, "tools");
    const rows = countRows(handle, "sources");
    await expect(importOpenApi(deps, { text: JSON.stringify(document) }, { prefix: "bad_" })).rejects.toMatchObject({
      name: "OpenApiDocumentError",
      kind: "invalid_document",
      message: "The document is not valid OpenAPI",
    });
    await expect(importOpenApi(deps, { text: "{ not json" })).rejects.toMatchObject({ kind: "invalid_document" });
    expect(countRows(handle, "tools")).toBe(tools);
    expect(countRows(handle, "sources")).toBe(rows);
    expect(registry.count()).toBe(tools);
  }, 60_000);
});
