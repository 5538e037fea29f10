// A long source document is stored deflated (a BLOB, compressed off the event loop) and read back
// exactly; a short one stays text. Writes whose compression ends out of order still land in the
// order they were called.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db";
import { SourceRows, SourceStore } from "@/lib/db/sources";
import { PACK_FROM_CHARS } from "@/lib/db/stored-text";
import { tempDir } from "../support/services";

/** An OpenAPI-like document of about `chars` characters, with text outside ASCII. */
function documentOf(chars: number): string {
  const paths: Record<string, unknown> = {};
  for (let i = 0, length = 0; length < chars; i++) {
    const operation = { get: { operationId: `pet${i}`, summary: `Pet ${i}: Pfötchen ✓ \u{1F43E}` } };
    paths[`/pets/${i}`] = operation;
    length += JSON.stringify(operation).length + 12;
  }
  return JSON.stringify({ openapi: "3.1.0", info: { title: "Pets", version: "1" }, paths });
}

let opened: ReturnType<typeof openDatabase>;
let sources: SourceStore;
beforeEach(() => {
  opened = openDatabase(path.join(tempDir(), "console.db"));
  sources = new SourceStore(opened.db);
});
afterEach(() => opened.close());

const stored = (id: string) =>
  opened.sqlite.prepare("select typeof(document) as type, length(document) as size from source_documents where source_id = ?").get(id) as {
    type: string;
    size: number;
  };

describe("stored source documents", () => {
  it("deflates a long document and reads it back exactly", async () => {
    const document = documentOf(3 * PACK_FROM_CHARS);
    const source = await sources.create({ kind: "openapi", name: "Pets", location: "pasted", document });
    expect(stored(source.id).type).toBe("blob");
    expect(stored(source.id).size).toBeLessThan(Buffer.byteLength(document) / 4);
    expect(await sources.document(source.id)).toBe(document);
  });

  it("keeps a short document as text", async () => {
    const document = documentOf(1_000);
    const source = await sources.create({ kind: "openapi", name: "Pets", location: "pasted", document });
    expect(stored(source.id).type).toBe("text");
    expect(await sources.document(source.id)).toBe(document);
  });

  it("replaces a document on update, from either form to the other", async () => {
    const long = documentOf(2 * PACK_FROM_CHARS);
    const source = await sources.create({ kind: "openapi", name: "Pets", location: "pasted", document: "{}" });
    await sources.update(source.id, { document: long });
    expect(stored(source.id).type).toBe("blob");
    expect(await sources.document(source.id)).toBe(long);
    await sources.update(source.id, { document: "{}" });
    expect(await sources.document(source.id)).toBe("{}");
    await sources.update(source.id, { document: null });
    expect(await sources.document(source.id)).toBeNull();
  });

  it("writes in call order when a long document's compression ends after a later call", async () => {
    const source = await sources.create({ kind: "openapi", name: "Pets", location: "pasted", document: "{}" });
    // The long one is compressed on the thread pool; the short one and the status change are ready at once.
    const first = sources.update(source.id, { document: documentOf(40 * PACK_FROM_CHARS), status: "ok" });
    const second = sources.update(source.id, { document: '{"openapi":"3.1.0"}' });
    const third = sources.update(source.id, { status: "error", statusMessage: "down" });
    await Promise.all([first, second, third]);
    // The length first: a failure prints two numbers rather than megabytes.
    expect(await sources.document(source.id)).toHaveLength('{"openapi":"3.1.0"}'.length);
    expect(await sources.document(source.id)).toBe('{"openapi":"3.1.0"}');
    expect(await sources.get(source.id)).toMatchObject({ status: "error", statusMessage: "down" });
  });

  it("changes nothing for a missing source, and goes on writing after a write the database refused", async () => {
    const refused = sources.update("src_none", { document: documentOf(2 * PACK_FROM_CHARS) });
    await expect(refused).resolves.toBeUndefined();
    // The store's own rows, whose writes wait in one queue: a row inserted twice breaks the
    // primary key, its promise rejects, and the writes queued after it still run.
    const rows = new SourceRows(opened.db);
    const store = new SourceStore(rows);
    const first = await store.create({ kind: "openapi", name: "Pets", location: "pasted" });
    const twice = rows.insert((await rows.byId(first.id))!, documentOf(2 * PACK_FROM_CHARS));
    const source = await store.create({ kind: "openapi", name: "Pets", location: "pasted", document: "{}" });
    await expect(twice).rejects.toThrow();
    expect(await store.document(source.id)).toBe("{}");
  });
});
