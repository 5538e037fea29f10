import { describe, expect, it } from "vitest";
import { AgentStates } from "@/lib/db/agent-states";
import { testServices } from "../support/services";

describe("AgentStates", () => {
  it("takes a paused state once, so a replayed resume finds nothing to go on from", async () => {
    const services = testServices();
    const states = new AgentStates(services.database.db);
    await states.put("a", "t1", "run", "r1", { step: 1 }, "paused");
    expect((await states.take("a", "t1", "run", "r2"))?.value).toEqual({ step: 1 });
    expect(await states.take("a", "t1", "run", "r3")).toBeUndefined();
    expect(await states.get("a", "t1", "run")).toMatchObject({ status: "resumed", runId: "r2" });
    services.close();
  });

  it("lists and deletes by key prefix, treating LIKE wildcards in the prefix as text", async () => {
    const services = testServices();
    const states = new AgentStates(services.database.db);
    for (const key of ["cp:1", "cp:2", "cpX3", "c%:4", "w:1"]) await states.put("g", "t", key, "r", key);
    expect((await states.list("g", "t", "cp:")).map((r) => r.key)).toEqual(["cp:1", "cp:2"]);
    expect((await states.list("g", "t", "c%")).map((r) => r.key)).toEqual(["c%:4"]);
    expect(await states.list("g", "other", "")).toEqual([]);
    expect(await states.delete("g", "t", "cp:")).toBe(2);
    expect((await states.list("g", "t")).map((r) => r.key)).toEqual(["c%:4", "cpX3", "w:1"]);
    services.close();
  });
});
