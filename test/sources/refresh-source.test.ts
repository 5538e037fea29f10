import { describe, expect, it } from "vitest";
import { refreshSource, type RefreshedSource } from "@/lib/sources/refresh-source";
import { DuplicateTool } from "@/lib/tools/errors";
import { SourceNotFound } from "@/lib/sources";
import { testServices } from "../support/services";

const tool = (name: string, description = "A tool") => ({
  spec: { name, description, inputSchema: { type: "object" }, kind: "openapi" },
  handler: async () => ({ ok: true }),
});

async function setup() {
  const services = testServices({ SEED_DEMO: "0" });
  const source = await services.sources.create({ kind: "openapi", name: "s", location: "inline" });
  await services.registry.addMany([{ ...tool("s_old"), spec: { ...tool("s_old").spec, sourceId: source.id } }]);
  return { services, id: source.id };
}

describe("refreshSource", () => {
  it("runs one refresh per source: a second request joins the first", async () => {
    const { services, id } = await setup();
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = async (): Promise<RefreshedSource> => {
      reads++;
      await gate;
      return { tools: [tool("s_new")], warnings: [] };
    };
    const first = refreshSource(services, id, "openapi", read);
    const second = refreshSource(services, id, "openapi", read);
    expect((await services.sources.get(id))?.status).toBe("refreshing");
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(reads).toBe(1);
    expect(b).toBe(a);
    expect(a.tools.map((t) => t.name)).toEqual(["s_new"]);
    expect(services.registry.get("s_old")).toBeUndefined();
    expect((await services.sources.get(id))?.status).toBe("ok");
    services.close();
  });

  it("keeps the old tools and records the reason when reading fails, or when a name belongs to another source", async () => {
    const { services, id } = await setup();
    await expect(refreshSource(services, id, "openapi", () => Promise.reject(new Error("server down")))).rejects.toThrow("server down");
    expect(await services.sources.get(id)).toMatchObject({ status: "error", statusMessage: "server down" });
    expect(services.registry.get("s_old")).toBeDefined();

    await services.registry.addMany([tool("taken")]);
    await expect(refreshSource(services, id, "openapi", async () => ({ tools: [tool("taken")], warnings: [] }))).rejects.toBeInstanceOf(
      DuplicateTool,
    );
    expect(services.registry.get("s_old")?.sourceId).toBe(id);
    services.close();
  });

  it("writes nothing for a source removed while its tools were read, and refuses a source of another kind", async () => {
    const { services, id } = await setup();
    const gone = refreshSource(services, id, "openapi", async () => {
      await services.registry.removeSource(id);
      await services.sources.delete(id);
      return { tools: [tool("s_new")], warnings: [] };
    });
    await expect(gone).rejects.toBeInstanceOf(SourceNotFound);
    expect(services.registry.get("s_new")).toBeUndefined();

    const other = await services.sources.create({ kind: "mcp", name: "m", location: "x" });
    await expect(refreshSource(services, other.id, "openapi", async () => ({ tools: [], warnings: [] }))).rejects.toBeInstanceOf(
      SourceNotFound,
    );
    services.close();
  });

  it("leaves unchanged tools alone when asked (their settings and rows stay as they were)", async () => {
    const { services, id } = await setup();
    await services.registry.update("s_old", { enabled: false });
    const before = services.registry.get("s_old")!;
    const same = { ...tool("s_old"), spec: { ...tool("s_old").spec } };
    const result = await refreshSource(services, id, "openapi", async () => ({ tools: [same], warnings: ["w"], keepWhenUnchanged: true }));
    expect(result.warnings).toEqual(["w"]);
    expect(services.registry.get("s_old")).toMatchObject({ enabled: false, createdAt: before.createdAt });
    services.close();
  });
});
