import type { ToolRow } from "@/lib/db/tools";

/** A tools row as the stores write it: a built-in read-only tool named `name`, with `overrides`. */
export function toolRow(name: string, overrides: Partial<ToolRow> = {}): ToolRow {
  return {
    name,
    title: name,
    description: `The ${name} tool`,
    inputSchema: { type: "object", properties: { q: { type: "string" } } },
    outputSchema: null,
    confirm: false,
    effects: "read",
    idempotent: true,
    openWorld: false,
    timeoutMs: 30_000,
    retries: 0,
    targets: ["mcp", "agui"],
    tags: [],
    kind: "builtin",
    sourceId: null,
    binding: null,
    enabled: true,
    approval: "default",
    digest: `digest-${name}`,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...overrides,
  };
}
