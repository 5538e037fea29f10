import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Message } from "@ag-ui/core";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelError, type ModelChunk, type ModelRequest, type ToolDescriptor } from "@/lib/agents/model";
import { AnthropicModel, toolUseIdOf, type AnthropicModelOptions } from "@/lib/agents/models/anthropic";
import { anthropicWire } from "@/lib/demo/model-server/anthropic";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { toAnthropicTool } from "@/lib/integrations/anthropic";
import type { ToolSpec } from "@/lib/tools";

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await ScriptedModelServer.start({ formats: [anthropicWire] });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending).toBe(0);
});

function driver(options: Partial<AnthropicModelOptions> = {}): AnthropicModel {
  return new AnthropicModel({ model: "claude-sonnet-4-5", apiKey: "test-key", baseUrl: server.url, maxRetries: 0, ...options });
}

function ask(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { messages, tools: [], signal: new AbortController().signal, ...extra };
}

async function collect(chunks: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

async function failureOf(chunks: AsyncIterable<ModelChunk>): Promise<{ error: unknown; seen: ModelChunk[] }> {
  const seen: ModelChunk[] = [];
  try {
    for await (const chunk of chunks) seen.push(chunk);
  } catch (error) {
    return { error, seen };
  }
  throw new Error(`the iteration ended without an error after ${seen.length} chunks`);
}

const hello: Message = { id: "u1", role: "user", content: "Hello" };

/** A registry tool as the registry holds it, exported to `targets`. */
function spec(name: string, targets: ToolSpec["policy"]["targets"] = ["agui", "anthropic", "gemini", "openai"]): ToolSpec {
  return {
    name,
    title: name,
    description: `The ${name} tool`,
    inputSchema: {
      type: "object",
      properties: { city: { type: "string", minLength: 1 }, unit: { enum: ["celsius", "fahrenheit"] } },
      required: ["city"],
      additionalProperties: false,
    },
    policy: {
      confirm: false,
      effects: "read",
      idempotent: true,
      openWorld: false,
      timeoutMs: 5_000,
      retries: 0,
      targets,
      tags: [],
    },
    kind: "builtin",
  };
}

function registryTool(name: string, targets?: ToolSpec["policy"]["targets"]): ToolDescriptor {
  const s = spec(name, targets);
  return { name, description: s.description, parameters: s.inputSchema, client: false, spec: s };
}

const clientTool: ToolDescriptor = {
  name: "pick_color",
  description: "Ask the person to pick a colour",
  parameters: { type: "object", properties: { palette: { type: "array", items: { type: "string" } } } },
  client: true,
};

describe("AnthropicModel", () => {
  it("streams a plain answer as several text deltas, then one usage chunk", async () => {
    server.script({ text: "Hello there, how can I help?", chunk: 6, usage: { input: 12, output: 7 } });
    const chunks = await collect(driver().respond(ask([hello], { system: "Be brief." })));
    expect(chunks).toEqual([
      { type: "text", delta: "Hello " },
      { type: "text", delta: "there," },
      { type: "text", delta: " how c" },
      { type: "text", delta: "an I h" },
      { type: "text", delta: "elp?" },
      {
        type: "usage",
        usage: { provider: "anthropic", model: "claude-sonnet-4-5", inputTokens: 12, outputTokens: 7, totalTokens: 19 },
      },
    ]);
    const [request] = server.requests;
    expect(request!.path).toBe("/v1/messages");
    // This SDK sends the key as a bearer token.
    expect(request!.headers.authorization).toBe("Bearer test-key");
    expect(request!.body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 8192,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
      stream: true,
    });
    expect(driver().label).toBe("anthropic:claude-sonnet-4-5");
  });

  it("takes max_tokens from maxOutputTokens and sends every request through the given fetch", async () => {
    const seen: string[] = [];
    const guarded: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    server.script({ text: "ok" });
    await collect(driver({ maxOutputTokens: 300, fetch: guarded }).respond(ask([hello])));
    expect(seen).toEqual([`${server.url}/v1/messages`]);
    expect(server.requests[0]!.body.max_tokens).toBe(300);
  });

  it("yields each of several tool calls in one turn complete, with the provider's ids (an answer of tool calls alone)", async () => {
    server.script({
      toolCalls: [
        { name: "get_weather", args: { city: "Paris", unit: "celsius" } },
        { name: "get_weather", args: { city: "Tokyo" } },
      ],
      chunk: 5,
    });
    const chunks = await collect(driver().respond(ask([hello], { tools: [registryTool("get_weather")] })));
    const calls = chunks.filter((c) => c.type === "tool_call");
    expect(calls).toEqual([
      { type: "tool_call", name: "get_weather", args: { city: "Paris", unit: "celsius" }, id: expect.stringMatching(/^toolu_/) },
      { type: "tool_call", name: "get_weather", args: { city: "Tokyo" }, id: expect.stringMatching(/^toolu_/) },
    ]);
    expect(calls[0]!.type === "tool_call" && calls[1]!.type === "tool_call" && calls[0]!.id !== calls[1]!.id).toBe(true);
    expect(chunks.at(-1)!.type).toBe("usage");
  });

  it("sends an earlier exchange in Anthropic's shape: tool_use blocks, then the results in one user message", async () => {
    server.script({ text: "Paris is mild; Tokyo is warm." });
    const history: Message[] = [
      { id: "s1", role: "system", content: "Answer in English." },
      hello,
      { id: "r1", role: "reasoning", content: "Two cities: two calls.", encryptedValue: "c2lnbmF0dXJl" },
      { id: "r2", role: "reasoning", content: "A trace without a signature cannot go back." },
      {
        id: "a1",
        role: "assistant",
        content: "Let me look.",
        toolCalls: [
          { id: "call_0123456789abcdef0123", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "client:call/2", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
        ],
      },
      { id: "t1", role: "tool", toolCallId: "call_0123456789abcdef0123", content: '{"temperature":18}' },
      { id: "t2", role: "tool", toolCallId: "client:call/2", content: '{"error":{"kind":"timeout"}}', error: "timed out" },
      { id: "u2", role: "user", content: "And so?" },
    ];
    await collect(driver().respond(ask(history, { system: "Be brief.", tools: [registryTool("get_weather")] })));
    const mapped = toolUseIdOf("client:call/2");
    expect(mapped).toMatch(/^toolu_[0-9a-f]{32}$/);
    expect(toolUseIdOf("call_0123456789abcdef0123")).toBe("call_0123456789abcdef0123");
    const body = server.requests[0]!.body;
    expect(body.system).toBe("Be brief.\n\nAnswer in English.");
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hello" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Two cities: two calls.", signature: "c2lnbmF0dXJl" },
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "call_0123456789abcdef0123", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: mapped, name: "get_weather", input: { city: "Tokyo" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_0123456789abcdef0123", content: '{"temperature":18}' },
          { type: "tool_result", tool_use_id: mapped, content: '{"error":{"kind":"timeout"}}', is_error: true },
          { type: "text", text: "And so?" },
        ],
      },
    ]);

    // The wire format reads the request back into the conversation the driver was given.
    const read = anthropicWire.read(body, new URL(server.url));
    expect(read.system).toBe("Be brief.\n\nAnswer in English.");
    expect(read.stream).toBe(true);
    expect(read.messages.map((m) => ({ ...m, id: undefined }))).toEqual([
      { id: undefined, role: "user", content: "Hello" },
      { id: undefined, role: "reasoning", content: "Two cities: two calls.", encryptedValue: "c2lnbmF0dXJl" },
      {
        id: undefined,
        role: "assistant",
        content: "Let me look.",
        toolCalls: [
          { id: "call_0123456789abcdef0123", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: mapped, type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
        ],
      },
      { id: undefined, role: "tool", toolCallId: "call_0123456789abcdef0123", content: '{"temperature":18}' },
      { id: undefined, role: "tool", toolCallId: mapped, content: '{"error":{"kind":"timeout"}}', error: '{"error":{"kind":"timeout"}}' },
      { id: undefined, role: "user", content: "And so?" },
    ]);
    expect(read.tools.map((t) => t.name)).toEqual(["get_weather"]);
  });

  it("offers registry tools as the exporter makes them, client tools from their parameters, and leaves out tools not exported to anthropic", async () => {
    server.script({ text: "ok" });
    const weather = registryTool("get_weather");
    await collect(driver().respond(ask([hello], { tools: [weather, clientTool, registryTool("openai_only", ["openai"])] })));
    const body = server.requests[0]!.body as unknown as MessageCreateParamsStreaming;
    expect(body.tools).toEqual([
      toAnthropicTool(weather.spec!).output,
      {
        name: "pick_color",
        description: "Ask the person to pick a colour",
        input_schema: { type: "object", properties: { palette: { type: "array", items: { type: "string" } } } },
      },
    ]);
    expect(anthropicWire.read(server.requests[0]!.body, new URL(server.url)).tools).toEqual([
      { name: "get_weather", description: "The get_weather tool", parameters: weather.spec!.inputSchema, client: false },
      { name: "pick_color", description: "Ask the person to pick a colour", parameters: clientTool.parameters, client: false },
    ]);
  });

  it("streams thinking as reasoning and reports usage with cache reads and thinking as parts of the totals", async () => {
    server.script({
      reasoning: "Think first.",
      text: "Answer.",
      chunk: 6,
      usage: { input: 100, output: 40, reasoning: 25, cachedInput: 60 },
    });
    const chunks = await collect(driver().respond(ask([hello])));
    expect(chunks).toEqual([
      { type: "reasoning", delta: "Think " },
      { type: "reasoning", delta: "first." },
      { type: "text", delta: "Answer" },
      { type: "text", delta: "." },
      {
        type: "usage",
        usage: {
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          inputTokens: 100,
          outputTokens: 40,
          totalTokens: 140,
          reasoningTokens: 25,
          cachedInputTokens: 60,
        },
      },
    ]);
  });

  it("turns a 401 into a ModelError that names ANTHROPIC_API_KEY", async () => {
    server.script({ error: { status: 401, message: "invalid x-api-key" } });
    const { error } = await failureOf(driver().respond(ask([hello])));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe("Anthropic refused the key (401: invalid x-api-key). Check ANTHROPIC_API_KEY.");
    expect((error as ModelError).status).toBe(401);
  });

  it.each([
    [500, "Internal server error"],
    [429, "Number of request tokens has exceeded your per-minute rate limit"],
  ])("turns a %i into a ModelError with the status and the API's message", async (status, message) => {
    server.script({ error: { status, message } });
    const { error } = await failureOf(driver().respond(ask([hello])));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe(`Anthropic answered ${status}: ${message}`);
    expect((error as ModelError).status).toBe(status);
  });

  it("retries a failed request within maxRetries", async () => {
    server.script({ error: { status: 500, message: "try again" } }, { text: "second time lucky" });
    const chunks = await collect(driver({ maxRetries: 1 }).respond(ask([hello])));
    expect(chunks[0]).toEqual({ type: "text", delta: "second t" });
    expect(server.requests).toHaveLength(2);
  });

  it("turns an error event in the middle of the stream into a ModelError, after what was streamed", async () => {
    server.script({ text: "Partial", streamError: { status: 529, message: "Overloaded" } });
    const { error, seen } = await failureOf(driver().respond(ask([hello])));
    expect(seen).toEqual([{ type: "text", delta: "Partial" }]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe("Anthropic answered 529: Overloaded");
  });

  it("stops when the signal is aborted mid-stream", async () => {
    const long = "word ".repeat(4000);
    server.script({ text: long, chunk: 5 });
    const controller = new AbortController();
    const seen: ModelChunk[] = [];
    let thrown: unknown;
    try {
      for await (const chunk of driver().respond(ask([hello], { signal: controller.signal }))) {
        seen.push(chunk);
        if (seen.length === 3) controller.abort();
      }
    } catch (error) {
      thrown = error;
    }
    expect(seen).toHaveLength(3);
    expect((thrown as Error).name).toBe("AbortError");
  });

  it("says why when the answer ends with nothing in it (a refusal)", async () => {
    // The API's own stream for a refused request, which the scripted turns have no way to say.
    const api = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const usage = { input_tokens: 9, output_tokens: 1 };
      const events = [
        {
          type: "message_start",
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage,
          },
        },
        { type: "message_delta", delta: { stop_reason: "refusal", stop_sequence: null }, usage },
        { type: "message_stop" },
      ];
      res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const { error } = await failureOf(driver({ baseUrl }).respond(ask([hello])));
      expect(error).toEqual(new ModelError("Anthropic stopped without an answer (refusal)", "model_error"));
    } finally {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
  });

  it("does not start a request for a signal already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await failureOf(driver().respond(ask([hello], { signal: controller.signal })));
    expect((error as Error).name).toBe("AbortError");
    expect(server.requests).toHaveLength(0);
  });
});

describe("anthropicWire without streaming", () => {
  const sdk = () => new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });

  it("answers one Message the SDK reads: thinking, text, tool_use blocks, stop reason and usage", async () => {
    server.script({
      reasoning: "Hmm.",
      text: "Calling.",
      toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }],
      usage: { input: 30, output: 9, cachedInput: 10 },
    });
    const message = await sdk().messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5",
      stop_reason: "tool_use",
      content: [
        { type: "thinking", thinking: "Hmm.", signature: expect.any(String) },
        { type: "text", text: "Calling." },
        { type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "get_weather", input: { city: "Oslo" } },
      ],
      usage: { input_tokens: 20, cache_read_input_tokens: 10, output_tokens: 9 },
    });
    expect(anthropicWire.read(server.requests[0]!.body, new URL(server.url)).stream).toBe(false);
  });

  it("answers a failure with the status and error body the SDK reads", async () => {
    server.script({ error: { status: 429, message: "slow down" } });
    const error = await sdk()
      .messages.create({ model: "claude-haiku-4-5", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 429, type: "rate_limit_error", apiMessage: "slow down" });
  });
});
