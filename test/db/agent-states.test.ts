import { describe, expect, it } from "vitest";
import { AgentStates } from "@/lib/db/agent-states";
import { testServices } from "../support/services";

describe("AgentStates", () => {
  it("takes a paused state once, so a replayed resume finds nothing to go on from", () => {
    const services = testServices();
    const states = new AgentStates(services.database.db);
    states.put("a", "t1", "run", "r1", { step: 1 }, "paused");
    expect(states.take("a", "t1", "run", "r2")?.value).toEqual({ step: 1 });
    expect(states.take("a", "t1", "run", "r3")).toBeUndefined();
    expect(states.get("a", "t1", "run")).toMatchObject({ status: "resumed", runId: "r2" });
    services.close();
  });

  it("lists and deletes by key prefix, treating LIKE wildcards in the prefix as text", () => {
    const services = testServices();
    const states = new AgentStates(services.database.db);
    for (const key of ["cp:1", "cp:2", "cpX3", "c%:4", "w:1"]) states.put("g", "t", key, "r", key);
    expect(states.list("g", "t", "cp:").map((r) => r.key)).toEqual(["cp:1", "cp:2"]);
    expect(states.list("g", "t", "c%").map((r) => r.key)).toEqual(["c%:4"]);
    expect(states.list("g", "other", "")).toEqual([]);
    expect(states.delete("g", "t", "cp:")).toBe(2);
    expect(states.list("g", "t").map((r) => r.key)).toEqual(["c%:4", "cpX3", "w:1"]);
    services.close();
  });
});
