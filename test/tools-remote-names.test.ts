import { describe, expect, it } from "vitest";
import { localToolName, MAX_TOOL_NAME, namePrefix, uniqueLocalName } from "@/lib/tools/remote-names";

describe("names of imported remote tools", () => {
  it("reduces a remote name to what a tool name may hold, under the prefix", () => {
    expect(localToolName("gh_", "search issues!", "tool")).toBe("gh_search_issues_");
    expect(localToolName("", "7up", "tool")).toBe("_7up");
    expect(localToolName("", "!!!", "skill")).toBe("___");
    expect(localToolName("", "", "skill")).toBe("skill");
  });

  it("keeps long names within the limit, different remote names apart", () => {
    const a = localToolName("p_", "x".repeat(100) + "a", "tool");
    const b = localToolName("p_", "x".repeat(100) + "b", "tool");
    expect(a.length).toBe(MAX_TOOL_NAME);
    expect(a).not.toBe(b);
  });

  it("gives the second of two remote names that reduce alike a name of its own", () => {
    const taken = new Set(["a_b"]);
    const second = uniqueLocalName("a_b", "a.b", taken);
    expect(second).not.toBe("a_b");
    expect(second.startsWith("a_b_")).toBe(true);
    expect(uniqueLocalName("free", "free", taken)).toBe("free");
  });

  it("says what is wrong with a prefix", () => {
    expect(namePrefix(" my-api ")).toEqual({ prefix: "my_api" });
    expect(namePrefix("9lives")).toEqual({ problem: "The name prefix must start with a letter or _" });
    expect(namePrefix("p".repeat(33))).toEqual({ problem: "The name prefix is longer than 32 characters" });
  });
});
