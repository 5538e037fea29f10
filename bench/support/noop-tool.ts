// The no-op tool the MCP and A2A benches call: the console registers it, the bare SDK servers answer it.

export const NOOP = {
  name: "noop",
  description: "Does nothing",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: { type: "object", properties: {} },
};
