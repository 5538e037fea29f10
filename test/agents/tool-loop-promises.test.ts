import { createHook } from "node:async_hooks";
import { EventType, type AGUIEvent } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { LOCAL_PRINCIPAL } from "@/lib/auth";
import { testServices } from "../support/services";

const WORDS = 20_000;

/** Runs the demo agent's `/stream N` and counts the promises made while it runs. */
async function streamCountingPromises(words: number) {
  const services = testServices({ AGENT_STREAM_DELAY_MS: "0" });
  let promises = 0;
  const hook = createHook({ init: (_id, type) => void (type === "PROMISE" && promises++) });
  const events = services.agents.get("demo")!.run(
    {
      threadId: "t-promises",
      runId: "r-promises",
      messages: [{ id: "u1", role: "user", content: `/stream ${words}` }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    },
    { principal: LOCAL_PRINCIPAL, signal: new AbortController().signal, executor: services.executor, logger: services.logger },
  );
  hook.enable();
  let text = "";
  try {
    for await (const event of events as AsyncIterable<AGUIEvent>)
      if (event.type === EventType.TEXT_MESSAGE_CONTENT) text += (event as { delta: string }).delta;
  } finally {
    hook.disable();
    services.close();
  }
  return { promises, text };
}

describe("the agent loop reading a model whose answer is at hand (the scripted model)", () => {
  // Where async context tracking is on (Next.js's AsyncLocalStorage), every promise costs a hook
  // call: a promise per chunk made a run through Next twice as slow as through the node adapter.
  it("streams 20,000 deltas with far fewer promises than deltas, and the whole text", async () => {
    const { promises, text } = await streamCountingPromises(WORDS);
    expect(text.split(" ")).toHaveLength(WORDS);
    expect(text.endsWith(".")).toBe(true);
    // An async generator read with for-await makes about 5 per delta (100,000 here).
    expect(promises).toBeLessThan(WORDS / 4);
  });
});
