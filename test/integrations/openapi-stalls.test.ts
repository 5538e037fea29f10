import { afterAll, describe, expect, it } from "vitest";
import { generatedDocument } from "@/bench/support/generated-openapi";
import { dropUnfinishedImports, SourceStore } from "@/lib/db/sources";
import { importOpenApi, loadOpenApiDocument, planOpenApiTools } from "@/lib/integrations/openapi";
import { prepareInWorker } from "@/lib/integrations/openapi/prepare-in-worker";
import { validateDocument } from "@/lib/integrations/openapi/validate-document";
import { silentLogger } from "@/lib/log";
import { OutboundGuard } from "@/lib/net";
import { DuplicateTool } from "@/lib/tools";
import { definitionDigest, normalise, ToolRegistry } from "@/lib/tools/registry";
import { countRows, freshDatabase } from "../support/database";

const handle = freshDatabase();
const registry = new ToolRegistry(handle.db);
const sources = new SourceStore(handle.db);
const outbound = new OutboundGuard();
const deps = { registry, sources, logger: silentLogger, outbound };
afterAll(() => handle.close());

/** The largest lateness of a timer asked to fire every 10 ms while `work` runs, and what `probe` saw at each tick. */
async function watched<T, P>(work: () => Promise<T>, probe: () => P): Promise<{ result: T; worstMs: number; seen: P[] }> {
  let worstMs = 0;
  let last = performance.now();
  const seen: P[] = [];
  const timer = setInterval(() => {
    const now = performance.now();
    worstMs = Math.max(worstMs, now - last - 10);
    last = now;
    seen.push(probe());
  }, 10);
  try {
    return { result: await work(), worstMs, seen };
  } finally {
    clearInterval(timer);
  }
}

describe("a 5,000-operation OpenAPI import keeps the event loop turning", () => {
  const document = generatedDocument(5_000);
  const text = JSON.stringify(document);

  it("a 10 ms timer is never held long, no tool shows before all are in, and the tools are those planned in-thread", async () => {
    // The worker is bundled (when stale) and started on first use: warm it with a small document.
    await importOpenApi(deps, { text: JSON.stringify(generatedDocument(2)) }, { prefix: "warm_" });
    const { result, worstMs, seen } = await watched(
      () => importOpenApi(deps, { text }, { prefix: "gen_" }),
      () => registry.list({ text: "gen_getResource", limit: 1 }).total,
    );
    // In-thread, validation alone held the loop 2-3 s, the tool checks 1.5 s and the insert 0.9 s
    // (each one synchronous stretch); a worker and batched writes leave far less, even on 2 busy cores.
    expect(worstMs).toBeLessThan(750);
    expect(seen.length).toBeGreaterThan(20);
    expect(new Set(seen)).toEqual(new Set([0, ...(seen.includes(2_500) ? [2_500] : [])]));
    expect(registry.list({ text: "gen_getResource", limit: 1 }).total).toBe(2_500);

    // The same document planned and checked on this thread, as the import did before it used a worker.
    const loaded = await loadOpenApiDocument({ text });
    const skipped = await validateDocument(loaded.document);
    const plan = planOpenApiTools(loaded, { prefix: "gen_" });
    expect(result.warnings).toEqual([...(skipped ? [skipped] : []), ...plan.warnings]);
    const expected = plan.operations.map((op) => normalise({ ...op.spec, sourceId: result.source.id }));
    expect(
      result.tools.map(({ name, title, description, inputSchema, outputSchema, policy, kind, sourceId, binding, digest }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
        policy,
        kind,
        sourceId,
        binding,
        digest,
      })),
    ).toEqual(expected.map((spec) => ({ ...spec, digest: definitionDigest(spec) })));
    expect(result.tools.map((tool) => registry.get(tool.name))).toEqual(result.tools);
    expect(countRows(handle, "tools", "source_id = ?", result.source.id)).toBe(5_000);
    expect(result.source).toMatchObject({ status: "ok", toolCount: 5_000 });
    expect(await sources.document(result.source.id)).toBe(JSON.stringify(loaded.document));
  }, 180_000);

  it("a name taken in the last batch undoes every batch written before it, and leaves no source", async () => {
    // Another registry on the same database takes the name; this registry's copy does not know it,
    // so the conflict is met only by the last batch of the insert.
    await new ToolRegistry(handle.db).add({ name: "late_updateResource2499", description: "taken", inputSchema: { type: "object" } });
    const tools = countRows(handle, "tools");
    const rows = countRows(handle, "sources");
    await expect(importOpenApi(deps, { text }, { prefix: "late_" })).rejects.toBeInstanceOf(DuplicateTool);
    expect(countRows(handle, "tools")).toBe(tools);
    expect(countRows(handle, "sources")).toBe(rows);
    expect(registry.list({ text: "late_" }).items.map((tool) => tool.name)).toEqual(["late_updateResource2499"]);
  }, 180_000);

  it("an invalid document fails on the worker with the validator's reasons, and changes nothing", async () => {
    const invalid = generatedDocument(600) as { paths: Record<string, { get: { responses: unknown } }> };
    invalid.paths["/resources7/{id}"]!.get.responses = 5;
    const tools = countRows(handle, "tools");
    const rows = countRows(handle, "sources");
    const error = await importOpenApi(deps, { text: JSON.stringify(invalid) }, { prefix: "bad_" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "OpenApiDocumentError", kind: "invalid_document", message: "The document is not valid OpenAPI" });
    expect((error as { problems: string[] }).problems.length).toBeGreaterThan(0);
    await expect(importOpenApi(deps, { text: "{ not json" })).rejects.toMatchObject({ kind: "invalid_document" });
    expect(countRows(handle, "tools")).toBe(tools);
    expect(countRows(handle, "sources")).toBe(rows);
  }, 60_000);

  it("a preparation past its time is stopped and refused, and the next one gets a worker of its own", async () => {
    await expect(prepareInWorker({ text, location: "pasted" }, {}, true, { timeoutMs: 1 })).rejects.toMatchObject({
      kind: "invalid_document",
      message: "The document took longer than 0 s to read and plan",
    });
    const small = await prepareInWorker({ text: JSON.stringify(generatedDocument(4)), location: "pasted" }, { prefix: "p_" }, true);
    expect(small.tools.map((tool) => tool.spec.name)).toEqual([
      "p_getResource0",
      "p_updateResource0",
      "p_getResource1",
      "p_updateResource1",
    ]);
    // An import's outline does not list the operations again (its tools hold them); a preview's does.
    expect(small.plan.operations).toEqual([]);
    const preview = await prepareInWorker({ text: JSON.stringify(generatedDocument(4)), location: "pasted" }, { prefix: "p_" }, false);
    expect(preview.tools).toEqual([]);
    expect(preview.plan.operations.map((operation) => operation.toolName)).toEqual(small.tools.map((tool) => tool.spec.name));
  }, 60_000);

  it("a source whose import was cut short (the process stopped) is removed with its tools when SQLite is opened", async () => {
    // What a process stopped mid-import leaves: the source row still importing, some of its tools.
    handle.db.$client
      .prepare("insert into sources (id, kind, name, location, status) values ('src_cut', 'openapi', 'cut short', 'pasted', 'importing')")
      .run();
    const source = (await sources.get("src_cut"))!;
    handle.db.$client
      .prepare(
        "insert into tools (name, title, description, input_schema, timeout_ms, targets, tags, kind, source_id, digest, created_at, updated_at) values (?, ?, '', '{}', 1000, '[]', '[]', 'openapi', ?, 'd', 0, 0)",
      )
      .run("cut_tool", "cut_tool", source.id);
    expect(dropUnfinishedImports(handle.db)).toBe(1);
    expect(await sources.get(source.id)).toBeUndefined();
    expect(countRows(handle, "tools", "name = ?", "cut_tool")).toBe(0);
    expect(dropUnfinishedImports(handle.db)).toBe(0);
  });
});
