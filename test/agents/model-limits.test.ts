import http from "node:http";
import type { AddressInfo } from "node:net";
import { EventType, type AGUIEvent } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFunction, runToolLoop } from "@/lib/agents";
import { OpenAIChatModel } from "@/lib/agents/models/openai-chat";
import { LOCAL_PRINCIPAL } from "@/lib/auth";
import type { Services } from "@/lib/services";
import { testServices } from "../support/services";

// A provider that answers its headers and a first delta, then goes quiet, never stops, or sends a
// word every 150 ms for 1.2 s and ends.
let provider: http.Server;
let base: string;
let services: Services;

beforeAll(async () => {
  provider = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    res.write(chunk("Hello"));
    if (req.url?.includes("endless")) {
      const timer = setInterval(() => res.write(chunk("and again ".repeat(100))), 1);
      res.on("close", () => clearInterval(timer));
    }
    if (req.url?.includes("steady")) {
      let sent = 0;
      const timer = setInterval(() => {
        if (++sent <= 8) return void res.write(chunk(` word${sent}`));
        clearInterval(timer);
        res.end("data: [DONE]\n\n");
      }, 150);
      res.on("close", () => clearInterval(timer));
    }
    // "quiet": nothing more, the connection stays open until the client goes.
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  services = testServices();
});
afterAll(() => {
  provider.closeAllConnections();
  provider.close();
  services.close();
});

async function runWith(path: string, limits: { idleTimeoutMs?: number; maxAnswerChars?: number }): Promise<AGUIEvent[]> {
  const model = new OpenAIChatModel({ model: "m", apiKey: "k", baseUrl: `${base}/${path}/v1` });
  const agent = agentFunction(
    {
      name: "limited",
      description: "",
      model: model.label,
      capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
    },
    (run) => runToolLoop(run, { model, tools: [], ...limits }),
  );
  const events: AGUIEvent[] = [];
  const input = {
    threadId: `t-${path}`,
    runId: `r-${path}`,
    messages: [{ id: "u", role: "user" as const, content: "hi" }],
    tools: [],
    context: [],
  };
  for await (const event of agent.run(input, {
    principal: LOCAL_PRINCIPAL,
    signal: new AbortController().signal,
    executor: services.executor,
    logger: services.logger,
  }))
    events.push(event);
  return events;
}

describe("a model answer is bounded", () => {
  it("in silence: a provider that goes quiet after its headers ends the run with RUN_ERROR saying so", async () => {
    const started = Date.now();
    const events = await runWith("quiet", { idleTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_ERROR,
      code: "model_error",
      message: expect.stringMatching(/sent nothing for/),
    });
    expect(events.filter((e) => e.type === EventType.TEXT_MESSAGE_END)).toHaveLength(1);
  });

  it("not in a steady answer: pauses under the limit keep it going well past the limit in all", async () => {
    const started = Date.now();
    const events = await runWith("steady", { idleTimeoutMs: 600 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    expect(events.some((e) => e.type === EventType.RUN_ERROR)).toBe(false);
    const text = events.flatMap((e) => (e.type === EventType.TEXT_MESSAGE_CONTENT ? [e.delta] : [])).join("");
    expect(text).toBe("Hello word1 word2 word3 word4 word5 word6 word7 word8");
  });

  it("in length: an answer that never stops is cut at the character limit", async () => {
    const events = await runWith("endless", { maxAnswerChars: 20_000 });
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_ERROR,
      code: "model_error",
      message: expect.stringMatching(/more than 20,000 characters/),
    });
  });
});
