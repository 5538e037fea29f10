import { describe, expect, it } from "vitest";
import type { ModelChunk } from "@/lib/agents";
import { AnthropicModel } from "@/lib/agents/models/anthropic";
import { GeminiModel } from "@/lib/agents/models/gemini";
import { OpenAIChatModel } from "@/lib/agents/models/openai-chat";
import { OpenAIResponsesModel } from "@/lib/agents/models/openai-responses";
import { offlineModelServer } from "@/lib/demo/model-server";

const weatherTool = {
  name: "get_weather",
  description: "Weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  client: true,
};

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe("the offline model server", () => {
  it("answers each provider's SDK the way the demo model would, in that provider's wire format", async () => {
    const server = await offlineModelServer();
    expect(await offlineModelServer()).toBe(server);
    const models = [
      new OpenAIChatModel({ model: "demo", apiKey: "offline", baseUrl: `${server.url}/v1` }),
      new OpenAIResponsesModel({ model: "demo", apiKey: "offline", baseUrl: `${server.url}/v1` }),
      new AnthropicModel({ model: "demo", apiKey: "offline", baseUrl: server.url }),
      new GeminiModel({ model: "demo", apiKey: "offline", baseUrl: server.url }),
    ];
    for (const model of models) {
      const signal = new AbortController().signal;
      const messages = [{ id: "u1", role: "user" as const, content: "What is the weather in Paris?" }];
      const chunks = await collect(model.respond({ messages, tools: [weatherTool], signal }));
      expect(chunks, model.label).toContainEqual(
        expect.objectContaining({ type: "tool_call", name: "get_weather", args: { city: "Paris" } }),
      );
      expect(
        chunks.some((c) => c.type === "usage"),
        model.label,
      ).toBe(true);
    }
  });
});

describe("offlineFetch", () => {
  it("lets a driver built before the server started reach it through the placeholder base URL, and nothing else", async () => {
    const { OFFLINE_MODEL_BASE_URL, offlineFetch } = await import("@/lib/demo/model-server");
    const model = new OpenAIChatModel({ model: "demo", apiKey: "offline", baseUrl: `${OFFLINE_MODEL_BASE_URL}/v1`, fetch: offlineFetch });
    const messages = [{ id: "u1", role: "user" as const, content: "hello" }];
    const chunks = await collect(model.respond({ messages, tools: [], signal: new AbortController().signal }));
    expect(chunks.filter((c) => c.type === "text").length).toBeGreaterThan(0);
    await expect(offlineFetch("http://127.0.0.1:9/v1/chat/completions")).rejects.toThrow(/only reaches/);
  });
});
