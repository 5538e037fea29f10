import { describe, expect, it } from "vitest";
import { declaredFeatures, featuresOf, readsTasks, sessionIdFor } from "@/lib/integrations/mcp/server-session";

describe("MCP server: what one request carries", () => {
  it("tells the requests that reach the tasks/* handlers (alone or in a batch) from every other", () => {
    for (const method of ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"])
      expect(readsTasks({ jsonrpc: "2.0", id: 1, method, params: {} })).toBe(true);
    expect(
      readsTasks([
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tasks/list" },
      ]),
    ).toBe(true);
    // A task-augmented call creates its task through the executor, not through the SDK's store.
    const taskCall = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "t", arguments: {}, task: { ttl: 1000 } } };
    for (const message of [taskCall, { jsonrpc: "2.0", id: 4, method: "tools/list" }, [], null, "tasks/get", { method: 7 }])
      expect(readsTasks(message)).toBe(false);
  });

  it("carries the features a client declared at initialize in its session id, and none in a foreign one", () => {
    const declared = declaredFeatures({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { capabilities: { elicitation: { url: {} } } },
    });
    expect(declared).toEqual({ urlElicitation: true });
    expect(featuresOf(sessionIdFor(declared!))).toEqual({ urlElicitation: true });
    expect(featuresOf(sessionIdFor({ urlElicitation: false }))).toEqual({ urlElicitation: false });
    expect(declaredFeatures({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBeUndefined();
    for (const foreign of [null, "", "abc.u", `${"x".repeat(36)}.u`]) expect(featuresOf(foreign)).toEqual({ urlElicitation: false });
  });
});
