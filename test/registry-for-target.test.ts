import { describe, expect, it } from "vitest";
import { testServices } from "./support/services";

const spec = (name: string) => ({ name, description: `Tool ${name}`, inputSchema: { type: "object", properties: {} } });

describe("ToolRegistry.forTarget", () => {
  it("answers the same frozen array until the registry changes, then one that shows the change", async () => {
    const services = testServices();
    const { registry } = services;
    try {
      const first = registry.forTarget("agui");
      expect(registry.forTarget("agui")).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);

      await registry.add(spec("zz_added"), () => null);
      const afterAdd = registry.forTarget("agui");
      expect(afterAdd).not.toBe(first);
      expect(afterAdd.map((t) => t.name)).toContain("zz_added");

      await registry.changeSettings("zz_added", { enabled: false }, "test");
      const afterDisable = registry.forTarget("agui");
      expect(afterDisable).not.toBe(afterAdd);
      expect(afterDisable.map((t) => t.name)).not.toContain("zz_added");

      await registry.changeSettings("zz_added", { enabled: true }, "test");
      expect(registry.forTarget("agui").map((t) => t.name)).toContain("zz_added");
      await registry.remove("zz_added");
      expect(registry.forTarget("agui").map((t) => t.name)).not.toContain("zz_added");
      // Each target has its own answer.
      expect(registry.forTarget("mcp")).not.toBe(registry.forTarget("agui"));
    } finally {
      services.close();
    }
  });

  it("shows a change another instance wrote once it is reloaded", async () => {
    const services = testServices();
    const other = testServices({ CONSOLE_DB: services.database.path });
    try {
      const before = services.registry.forTarget("agui");
      await other.registry.add(spec("zz_elsewhere"), () => null);
      expect(services.registry.forTarget("agui")).toBe(before);
      await services.registry.reload(["zz_elsewhere"]);
      expect(services.registry.forTarget("agui").map((t) => t.name)).toContain("zz_elsewhere");
    } finally {
      other.close();
      services.close();
    }
  });
});
