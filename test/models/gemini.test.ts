import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Message } from "@ag-ui/core";
import { ApiError, GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelError, type ModelChunk, type ModelRequest, type ToolDescriptor } from "@/lib/agents/model";
import { GeminiModel, toGeminiContents, type GeminiModelOptions } from "@/lib/agents/models/gemini";
import { geminiWire } from "@/lib/demo/model-server/gemini";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { toGeminiFunctionDeclaration } from "@/lib/integrations/gemini";
import type { ToolSpec } from "@/lib/tools";

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await ScriptedModelServer.start({ formats: [geminiWire] });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending).toBe(0);
});

function driver(options: Partial<GeminiModelOptions> = {}): GeminiModel {
  return new GeminiModel({ model: "gemini-2.5-flash", apiKey: "test-key", baseUrl: server.url, maxRetries: 0, ...options });
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
function registryTool(name: string, targets: ToolSpec["policy"]["targets"] = ["agui", "anthropic", "gemini", "openai"]): ToolDescriptor {
  const spec: ToolSpec = {
    name,
    title: name,
    description: `The ${name} tool`,
    inputSchema: {
      type: "object",
      properties: { city: { type: "string", minLength: 1 }, unit: { enum: ["celsius", "fahrenheit"] } },
      required: ["city"],
      additionalProperties: false,
    },
    outputSchema: { type: "object", properties: { temperature: { type: "number" } } },
    policy: { confirm: false, effects: "read", idempotent: true, openWorld: false, timeoutMs: 5_000, retries: 0, targets, tags: [] },
    kind: "builtin",
  };
  return { name, description: spec.description, parameters: spec.inputSchema, client: false, spec };
}

const clientTool: ToolDescriptor = {
  name: "pick_color",
  description: "Ask the person to pick a colour",
  parameters: { type: "object", properties: { palette: { type: "array", items: { type: "string" } } } },
  client: true,
};

describe("GeminiModel", () => {
  it("streams a plain answer as several text deltas, then one usage chunk", async () => {
    server.script({ text: "Hello there, how can I help?", chunk: 6, usage: { input: 12, output: 7 } });
    const chunks = await collect(driver().respond(ask([hello], { system: "Be brief." })));
    expect(chunks).toEqual([
      { type: "text", delta: "Hello " },
      { type: "text", delta: "there," },
      { type: "text", delta: " how c" },
      { type: "text", delta: "an I h" },
      { type: "text", delta: "elp?" },
      { type: "usage", usage: { provider: "google", model: "gemini-2.5-flash", inputTokens: 12, outputTokens: 7, totalTokens: 19 } },
    ]);
    const [request] = server.requests;
    expect(request!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(request!.headers["x-goog-api-key"]).toBe("test-key");
    expect(request!.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "Hello" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    });
    expect(driver().label).toBe("gemini:gemini-2.5-flash");
  });

  it("asks for thoughts only from thinking models, takes maxOutputTokens, and sends every request through the given fetch", async () => {
    const seen: string[] = [];
    const guarded: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    server.script({ text: "ok" });
    await collect(driver({ model: "gemini-2.0-flash", maxOutputTokens: 300, fetch: guarded }).respond(ask([hello])));
    expect(seen).toEqual([`${server.url}/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse`]);
    expect(server.requests[0]!.body.generationConfig).toEqual({ maxOutputTokens: 300 });
  });

  it("yields several function calls in one turn as parallel tool calls (an answer of calls alone)", async () => {
    server.script({
      toolCalls: [
        { name: "get_weather", args: { city: "Paris", unit: "celsius" } },
        { name: "get_weather", args: { city: "Tokyo" } },
      ],
    });
    const chunks = await collect(driver().respond(ask([hello], { tools: [registryTool("get_weather")] })));
    expect(chunks.filter((c) => c.type === "tool_call")).toEqual([
      { type: "tool_call", name: "get_weather", args: { city: "Paris", unit: "celsius" } },
      { type: "tool_call", name: "get_weather", args: { city: "Tokyo" } },
    ]);
    expect(chunks.at(-1)!.type).toBe("usage");
  });

  it("sends an earlier exchange in Gemini's shape: functionCall parts, then named functionResponse parts in one user content", async () => {
    server.script({ text: "Paris is mild; Tokyo is warm." });
    const history: Message[] = [
      { id: "s1", role: "system", content: "Answer in English." },
      hello,
      { id: "r1", role: "reasoning", content: "Two cities: two calls." },
      {
        id: "a1",
        role: "assistant",
        content: "Let me look.",
        toolCalls: [
          { id: "call_paris", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_tokyo", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' }, encryptedValue: "c2ln" },
        ],
      },
      { id: "t1", role: "tool", toolCallId: "call_paris", content: '{"ok":true,"value":{"temperature":18}}' },
      { id: "t2", role: "tool", toolCallId: "call_tokyo", content: "timed out", error: "timed out" },
      { id: "u2", role: "user", content: "And so?" },
    ];
    await collect(driver().respond(ask(history, { system: "Be brief.", tools: [registryTool("get_weather")] })));
    const body = server.requests[0]!.body;
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be brief.\n\nAnswer in English." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Hello" }] },
      {
        role: "model",
        parts: [
          { text: "Let me look." },
          {
            functionCall: { id: "call_paris", name: "get_weather", args: { city: "Paris" } },
            thoughtSignature: "skip_thought_signature_validator",
          },
          { functionCall: { id: "call_tokyo", name: "get_weather", args: { city: "Tokyo" } }, thoughtSignature: "c2ln" },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { id: "call_paris", name: "get_weather", response: { output: { ok: true, value: { temperature: 18 } } } } },
          { functionResponse: { id: "call_tokyo", name: "get_weather", response: { error: "timed out" } } },
          { text: "And so?" },
        ],
      },
    ]);

    // The wire format reads the request back into the conversation the driver was given.
    const read = geminiWire.read(body, new URL(server.url + server.requests[0]!.path));
    expect(read.model).toBe("gemini-2.5-flash");
    expect(read.system).toBe("Be brief.\n\nAnswer in English.");
    expect(read.stream).toBe(true);
    expect(read.messages.map((m) => ({ ...m, id: undefined }))).toEqual([
      { id: undefined, role: "user", content: "Hello" },
      {
        id: undefined,
        role: "assistant",
        content: "Let me look.",
        toolCalls: [
          {
            id: "call_paris",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            encryptedValue: "skip_thought_signature_validator",
          },
          { id: "call_tokyo", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' }, encryptedValue: "c2ln" },
        ],
      },
      { id: undefined, role: "tool", toolCallId: "call_paris", content: '{"ok":true,"value":{"temperature":18}}' },
      { id: undefined, role: "tool", toolCallId: "call_tokyo", content: "timed out", error: "timed out" },
      { id: undefined, role: "user", content: "And so?" },
    ]);
  });

  it("refuses a tool result that answers no call in the conversation", () => {
    expect(() => toGeminiContents(undefined, [hello, { id: "t1", role: "tool", toolCallId: "call_lost", content: "{}" }])).toThrow(
      new ModelError("The conversation has a tool result for call_lost, a call no assistant message made", "model_error"),
    );
  });

  it("offers registry tools as the exporter makes them, client tools from their parameters, and leaves out tools not exported to gemini", async () => {
    server.script({ text: "ok" });
    const weather = registryTool("get_weather");
    await collect(driver().respond(ask([hello], { tools: [weather, clientTool, registryTool("openai_only", ["openai"])] })));
    expect(server.requests[0]!.body.tools).toEqual([
      {
        functionDeclarations: [
          toGeminiFunctionDeclaration(weather.spec!).output,
          { name: "pick_color", description: "Ask the person to pick a colour", parametersJsonSchema: clientTool.parameters },
        ],
      },
    ]);
    expect(geminiWire.read(server.requests[0]!.body, new URL(server.url + server.requests[0]!.path)).tools).toEqual([
      { name: "get_weather", description: "The get_weather tool", parameters: weather.spec!.inputSchema, client: false },
      { name: "pick_color", description: "Ask the person to pick a colour", parameters: clientTool.parameters, client: false },
    ]);
  });

  it("streams thought parts as reasoning and reports usage with thoughts and cached tokens as parts of the totals", async () => {
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
          provider: "google",
          model: "gemini-2.5-flash",
          inputTokens: 100,
          outputTokens: 40,
          totalTokens: 140,
          reasoningTokens: 25,
          cachedInputTokens: 60,
        },
      },
    ]);
  });

  it("turns a 401 into a ModelError that names GEMINI_API_KEY", async () => {
    server.script({ error: { status: 401, message: "Request had invalid authentication credentials." } });
    const { error } = await failureOf(driver().respond(ask([hello])));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe(
      "Gemini refused the key (401: Request had invalid authentication credentials.). Check GEMINI_API_KEY.",
    );
    expect((error as ModelError).status).toBe(401);
  });

  it("names GEMINI_API_KEY for the API's own answer to a bad key (400, API_KEY_INVALID)", async () => {
    const api = http.createServer((_req, res) =>
      res.writeHead(400, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: {
            code: 400,
            message: "API key not valid. Please pass a valid API key.",
            status: "INVALID_ARGUMENT",
            details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }],
          },
        }),
      ),
    );
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const { error } = await failureOf(driver({ baseUrl }).respond(ask([hello])));
      expect((error as ModelError).message).toBe(
        "Gemini refused the key (400: API key not valid. Please pass a valid API key.). Check GEMINI_API_KEY.",
      );
    } finally {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
  });

  it.each([
    [500, "An internal error has occurred."],
    [429, "Resource has been exhausted (e.g. check quota)."],
  ])("turns a %i into a ModelError with the status and the API's message", async (status, message) => {
    server.script({ error: { status, message } });
    const { error } = await failureOf(driver().respond(ask([hello])));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe(`Gemini answered ${status}: ${message}`);
    expect((error as ModelError).status).toBe(status);
  });

  it("retries a failed request within maxRetries", async () => {
    server.script({ error: { status: 503, message: "The model is overloaded." } }, { text: "second time lucky" });
    const chunks = await collect(driver({ maxRetries: 1 }).respond(ask([hello])));
    expect(chunks[0]).toEqual({ type: "text", delta: "second t" });
    expect(server.requests).toHaveLength(2);
  });

  it("turns an error in the middle of the stream into a ModelError, after what was streamed", async () => {
    server.script({ text: "Partial", streamError: { status: 500, message: "An internal error has occurred." } });
    const { error, seen } = await failureOf(driver().respond(ask([hello])));
    expect(seen).toEqual([{ type: "text", delta: "Partial" }]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe("Gemini answered 500: An internal error has occurred.");
  });

  it("stops when the signal is aborted mid-stream", async () => {
    server.script({ text: "word ".repeat(4000), chunk: 5 });
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

  it("says why when the answer ends with nothing in it (a safety block)", async () => {
    // The API's own stream for a blocked answer, which the scripted turns have no way to say.
    const api = http.createServer((_req, res) => {
      const blocked = {
        candidates: [
          {
            finishReason: "SAFETY",
            index: 0,
            safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }],
          },
        ],
        usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
        modelVersion: "gemini-2.5-flash",
      };
      res.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${JSON.stringify(blocked)}\r\n\r\n`);
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const { error } = await failureOf(driver({ baseUrl }).respond(ask([hello])));
      expect(error).toEqual(new ModelError("Gemini stopped without an answer (SAFETY)", "model_error"));
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

describe("geminiWire without streaming", () => {
  const sdk = () => new GoogleGenAI({ vertexai: false, apiKey: "test-key", httpOptions: { baseUrl: server.url } });

  it("answers one GenerateContentResponse the SDK reads: thoughts, text, function calls and usage", async () => {
    server.script({
      reasoning: "Hmm.",
      text: "Calling.",
      toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }],
      usage: { input: 30, output: 9, reasoning: 4 },
    });
    const response = await sdk().models.generateContent({ model: "gemini-2.5-pro", contents: "Hi" });
    expect(response.candidates![0]!.content!.parts).toEqual([
      { text: "Hmm.", thought: true },
      { text: "Calling." },
      { functionCall: { name: "get_weather", args: { city: "Oslo" } } },
    ]);
    expect(response.functionCalls).toEqual([{ name: "get_weather", args: { city: "Oslo" } }]);
    expect(response.usageMetadata).toEqual({ promptTokenCount: 30, candidatesTokenCount: 5, thoughtsTokenCount: 4, totalTokenCount: 39 });
    expect(server.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-pro:generateContent");
    expect(geminiWire.read(server.requests[0]!.body, new URL(server.url + server.requests[0]!.path)).stream).toBe(false);
  });

  it("answers a failure with the status and error body the SDK reads", async () => {
    server.script({ error: { status: 429, message: "slow down" } });
    const error = await sdk()
      .models.generateContent({ model: "gemini-2.5-pro", contents: "Hi" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect(JSON.parse((error as ApiError).message)).toEqual({ error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" } });
  });
});
