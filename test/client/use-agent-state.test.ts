import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { AgentState } from "@/lib/client";
import { useAgentState } from "@/lib/client/use-agent-state";
import { ev, feed, scriptedAgent } from "./fixtures";

describe("useAgentState", () => {
  it("renders from the store's current snapshot", () => {
    const store = new AgentState({ agent: scriptedAgent(), threadId: "t1" });
    feed(store, ev.runStarted(), ev.text("m1", "Hello ", "there"));
    function Chat() {
      const snapshot = useAgentState(store);
      return createElement("p", null, `${snapshot.status}: ${snapshot.messages.map((m) => m.content).join("|")}`);
    }
    expect(renderToString(createElement(Chat))).toBe("<p>running: Hello there</p>");
  });
});
