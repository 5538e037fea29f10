import { describe, expect, it } from "vitest";
import { toolDefinitions } from "@/lib/agents/models/common";
import type { ToolDescriptor } from "@/lib/agents";
import { ToolUsageError } from "@/lib/tools/errors";
import type { ToolSpec } from "@/lib/tools/spec";

const spec = (name: string) => ({ name, description: name, inputSchema: { type: "object" } }) as unknown as ToolSpec;
const registryTool = (s: ToolSpec): ToolDescriptor => ({
  name: s.name,
  description: s.description,
  parameters: {},
  client: false,
  spec: s,
});

describe("toolDefinitions", () => {
  it("exports a registry tool once per definition object, skips a refused one, and exports a changed definition again", () => {
    let exports = 0;
    const exporter = (s: ToolSpec) => {
      exports++;
      if (s.name === "refused") throw new ToolUsageError("not for this format");
      return { output: { name: s.name }, warnings: [] };
    };
    const a = spec("a");
    const refused = spec("refused");
    const client: ToolDescriptor = { name: "c", description: "", parameters: {}, client: true };
    const turn = (tools: ToolDescriptor[]) => toolDefinitions(tools, exporter, (t) => ({ name: `client:${t.name}` }));
    expect(turn([registryTool(a), registryTool(refused), client])).toEqual([{ name: "a" }, { name: "client:c" }]);
    expect(turn([registryTool(a), registryTool(refused), client])).toEqual([{ name: "a" }, { name: "client:c" }]);
    expect(exports).toBe(2);
    const changed = { ...a };
    expect(turn([registryTool(changed)])).toEqual([{ name: "a" }]);
    expect(exports).toBe(3);
  });
});
