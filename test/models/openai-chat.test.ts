import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelError, type ModelChunk } from "@/lib/agents/model";
import { OpenAIChatModel } from "@/lib/agents/models/openai-chat";
import { openAIChatWire } from "@/lib/demo/model-server/openai-chat";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { toOpenAIChatTool } from "@/lib/integrations/openai/openai-tools";
import {
  answer,
  confirmTool,
  failure,
  fetchAddingHeaders,
  hello,
  threadWithToolResults,
  weatherSpec,
  weatherTool,
} from "./openai-fixtures";
import { arrivedAsPieces } from "../support/streamed-pieces";

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await ScriptedModelServer.start({ formats: [openAIChatWire] });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending).toBe(0);
});

const KEY = "sk-test-secret-key";
const model = (options: { maxRetries?: number; fetch?: typeof fetch; maxOutputTokens?: number } = {}) =>
  new OpenAIChatModel({ model: "gpt-test", apiKey: KEY, baseUrl: `${server.url}/v1`, maxRetries: 0, ...options });
const texts = (chunks: ModelChunk[], type: "text" | "reasoning") => chunks.flatMap((c) => (c.type === type ? [c.delta] : []));
/** The kinds of chunk in the order they came, a run of one kind counted once. */
const kindsInOrder = (chunks: ModelChunk[]) => chunks.map((c) => c.type).filter((type, at, all) => type !== all[at - 1]);

describe("OpenAIChatModel against the scripted Chat Completions server", () => {
  it("streams a plain answer as several text deltas, asking for usage", async () => {
    server.script({ text: "Hello there, how can I help?", chunk: 6, pauseMs: 15 });
    const chunks = await answer(model(), hello, { system: "Be brief." });
    expect(model().label).toBe("openai:gpt-test");
    // Spaced out, the pieces arrive in reads of their own (one or several pieces a delta).
    expect(texts(chunks, "text").length).toBeGreaterThan(1);
    expect(arrivedAsPieces(texts(chunks, "text"), ["Hello ", "there,", " how c", "an I h", "elp?"])).toBe(true);
    expect(chunks.some((c) => c.type === "usage" || c.type === "tool_call")).toBe(false);
    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("yields two parallel tool calls of one answer in order, with their arguments and ids", async () => {
    server.script({
      text: "Checking both.",
      toolCalls: [
        { name: "get_weather", args: { city: "Paris" } },
        { name: "get_weather", args: { city: "Tokyo", unit: "celsius" } },
      ],
      chunk: 4,
    });
    const chunks = await answer(model(), hello, { tools: [weatherTool] });
    const calls = chunks.filter((c) => c.type === "tool_call");
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "get_weather", args: { city: "Paris" } },
      { name: "get_weather", args: { city: "Tokyo", unit: "celsius" } },
    ]);
    expect(calls.map((c) => c.id)).toEqual([expect.stringMatching(/^call_/), expect.stringMatching(/^call_/)]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(texts(chunks, "text").join("")).toBe("Checking both.");
  });

  it("sends earlier tool calls and results in Chat Completions form, and read() gives the conversation back", async () => {
    server.script({ text: "Sunny tomorrow." });
    await answer(model(), threadWithToolResults, { system: "You report weather." });
    const body = server.requests[0]!.body;
    expect(body.messages).toEqual([
      { role: "system", content: "You report weather." },
      { role: "user", content: "Weather in Paris and Tokyo?" },
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          { id: "call_p", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_t", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_p", content: '{"ok":true,"value":{"temperature":18}}' },
      { role: "tool", tool_call_id: "call_t", content: '{"ok":true,"value":{"temperature":24}}' },
      { role: "assistant", content: "Paris 18°, Tokyo 24°." },
      { role: "user", content: "Thanks.\nAnd tomorrow?" },
    ]);
    // The reasoning message is not sent; everything else comes back as the console had it.
    const read = openAIChatWire.read(body, new URL(server.url));
    expect(read.system).toBe("You report weather.");
    expect(read.stream).toBe(true);
    expect(read.messages.map(({ id: _id, ...rest }) => rest)).toEqual(
      threadWithToolResults
        .filter((m) => m.role !== "reasoning")
        .map(({ id: _id, ...rest }) =>
          rest.role === "user" && Array.isArray(rest.content) ? { ...rest, content: "Thanks.\nAnd tomorrow?" } : rest,
        ),
    );
  });

  it("keeps calls apart that a compatible server streams all at index 0, each with its own id", async () => {
    server.script({
      toolCalls: [
        { name: "get_weather", args: { city: "Paris" } },
        { name: "get_weather", args: { city: "Tokyo" } },
      ],
      chunk: 5,
    });
    // The same stream, with every tool-call index rewritten to 0.
    const indexZero: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      return new Response((await response.text()).replaceAll('"index":1', '"index":0'), {
        status: response.status,
        headers: response.headers,
      });
    };
    const chunks = await answer(model({ fetch: indexZero }), hello, { tools: [weatherTool] });
    expect(chunks.filter((c) => c.type === "tool_call").map((c) => c.args)).toEqual([{ city: "Paris" }, { city: "Tokyo" }]);
  });

  it("offers registry tools as the exporter makes them (strict) and client tools from their parameters, and drops strict nulls", async () => {
    server.script({ toolCalls: [{ name: "get_weather", args: { city: "Oslo", unit: null } }] });
    const chunks = await answer(model({ maxOutputTokens: 300 }), hello, { tools: [weatherTool, confirmTool] });
    const body = server.requests[0]!.body;
    expect(body.max_completion_tokens).toBe(300);
    expect(body.tools).toEqual([
      toOpenAIChatTool(weatherSpec).output,
      {
        type: "function",
        function: {
          name: "confirm_with_user",
          description: "Ask the person to confirm",
          parameters: confirmTool.parameters,
          strict: false,
        },
      },
    ]);
    expect(body.tools).toMatchInlineSnapshot(`
      [
        {
          "function": {
            "description": "Current weather for a city",
            "name": "get_weather",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "type": "string",
                },
                "unit": {
                  "enum": [
                    "celsius",
                    "fahrenheit",
                    null,
                  ],
                  "type": [
                    "string",
                    "null",
                  ],
                },
              },
              "required": [
                "city",
                "unit",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "function",
        },
        {
          "function": {
            "description": "Ask the person to confirm",
            "name": "confirm_with_user",
            "parameters": {
              "properties": {
                "question": {
                  "type": "string",
                },
              },
              "required": [
                "question",
              ],
              "type": "object",
            },
            "strict": false,
          },
          "type": "function",
        },
      ]
    `);
    // Strict mode made `unit` required and nullable; the model's null means "left out".
    expect(chunks.filter((c) => c.type === "tool_call").map((c) => c.args)).toEqual([{ city: "Oslo" }]);
    expect(openAIChatWire.read(body, new URL(server.url)).tools.map((t) => t.name)).toEqual(["get_weather", "confirm_with_user"]);
  });

  it("joins the deltas that arrive together: a reader behind its model handles a read at a time", async () => {
    const text = "word ".repeat(4000);
    server.script({ text, chunk: 5 });
    const deltas = texts(await answer(model(), hello), "text");
    expect(deltas.join("")).toBe(text);
    expect(deltas.length).toBeLessThan(400);
  });

  it("streams reasoning_content as reasoning, before the text", async () => {
    server.script({ reasoning: "The user greets me.", text: "Hi!", chunk: 5 });
    const chunks = await answer(model(), hello);
    expect(kindsInOrder(chunks)).toEqual(["reasoning", "text"]);
    expect(texts(chunks, "reasoning").join("")).toBe("The user greets me.");
  });

  it("reports usage once, at the end, in AG-UI terms", async () => {
    server.script({ text: "Counted.", usage: { input: 120, output: 45, reasoning: 20, cachedInput: 64 } });
    const chunks = await answer(model(), hello);
    expect(chunks.at(-1)).toEqual({
      type: "usage",
      usage: {
        provider: "openai",
        model: "gpt-test",
        inputTokens: 120,
        outputTokens: 45,
        totalTokens: 165,
        reasoningTokens: 20,
        cachedInputTokens: 64,
      },
    });
    expect(chunks.filter((c) => c.type === "usage")).toHaveLength(1);
  });

  it("turns a 401 into a ModelError naming OPENAI_API_KEY, without the key", async () => {
    server.script({ error: { status: 401, message: "Incorrect API key provided" } });
    const error = await failure(answer(model(), hello));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe("OpenAI refused the key (401: Incorrect API key provided). Check OPENAI_API_KEY.");
    expect((error as ModelError).status).toBe(401);
    expect(error.message).not.toContain(KEY);
  });

  it("turns a 500 into a ModelError with the status and the provider's message", async () => {
    server.script({ error: { status: 500, message: "The server had an error" } });
    const error = await failure(answer(model(), hello));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe("OpenAI answered 500: The server had an error");
  });

  it("retries a 429 a bounded number of times, then reports it", async () => {
    server.script({ error: { status: 429, message: "Rate limit reached" } }, { text: "After the wait." });
    const retried = await answer(model({ maxRetries: 1, fetch: fetchAddingHeaders(429, { "retry-after-ms": "10" }) }), hello);
    expect(texts(retried, "text").join("")).toBe("After the wait.");
    expect(server.requests).toHaveLength(2);

    server.requests.length = 0;
    server.script({ error: { status: 429, message: "Rate limit reached" } }, { error: { status: 429, message: "Rate limit reached" } });
    const error = await failure(answer(model({ maxRetries: 1, fetch: fetchAddingHeaders(429, { "retry-after-ms": "10" }) }), hello));
    expect(error.message).toBe("OpenAI answered 429: Rate limit reached");
    expect(server.requests).toHaveLength(2);
  });

  it("does not wait when the provider asks for a longer wait than the bound", async () => {
    server.script({ error: { status: 429, message: "Rate limit reached" } });
    const started = Date.now();
    const error = await failure(answer(model({ maxRetries: 2, fetch: fetchAddingHeaders(429, { "retry-after": "3600" }) }), hello));
    expect(error.message).toBe("OpenAI answered 429: Rate limit reached");
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("turns an error frame in the middle of the stream into a ModelError, after the text it had sent", async () => {
    server.script({ text: "Partial", streamError: { status: 500, message: "Upstream overloaded" } });
    const chunks: ModelChunk[] = [];
    const error = await failure(
      (async () => {
        for await (const chunk of model().respond({ messages: hello, tools: [], signal: new AbortController().signal })) chunks.push(chunk);
      })(),
    );
    expect(texts(chunks, "text").join("")).toBe("Partial");
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe("OpenAI answered 500: Upstream overloaded");
  });

  it("ends the iteration when the signal aborts mid-stream", async () => {
    server.script({ text: "x".repeat(400), chunk: 1, toolCalls: [{ name: "get_weather", args: { city: "Rome" } }] });
    const controller = new AbortController();
    const chunks: ModelChunk[] = [];
    const error = await failure(
      (async () => {
        for await (const chunk of model().respond({ messages: hello, tools: [weatherTool], signal: controller.signal })) {
          chunks.push(chunk);
          if (chunks.length === 3) controller.abort(new Error("client went away"));
        }
      })(),
    );
    expect(error.message).toBe("client went away");
    expect(chunks).toHaveLength(3);
  });
});

describe("the Chat Completions wire format, read by the openai SDK", () => {
  const client = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });

  it("answers stream: false with one chat.completion", async () => {
    server.script({
      reasoning: "Easy.",
      text: "Calling.",
      toolCalls: [{ name: "get_weather", args: { city: "Lima" } }],
      usage: { input: 10, output: 5 },
    });
    const completion = await client().chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("gpt-test");
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Calling.");
    expect(choice.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: "function", function: { name: "get_weather", arguments: '{"city":"Lima"}' } },
    ]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it("streams chunks the SDK reads, with a usage chunk only when asked for", async () => {
    server.script(
      { text: "Hi there", usage: { input: 3, output: 2 }, chunk: 4 },
      { text: "Hi there", usage: { input: 3, output: 2 }, chunk: 4 },
    );
    const read = async (includeUsage: boolean) => {
      const stream = await client().chat.completions.create({
        model: "gpt-test",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
        ...(includeUsage && { stream_options: { include_usage: true } }),
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      return chunks;
    };
    const plain = await read(false);
    expect(plain.map((c) => [c.choices[0]?.delta, c.choices[0]?.finish_reason])).toEqual([
      [{ role: "assistant", content: "" }, null],
      [{ content: "Hi t" }, null],
      [{ content: "here" }, null],
      [{}, "stop"],
    ]);
    expect(plain.every((c) => c.object === "chat.completion.chunk" && c.id === plain[0]!.id)).toBe(true);
    const withUsage = await read(true);
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
  });

  it("refuses a body that is not a Chat Completions request", () => {
    expect(() => openAIChatWire.read({ model: "m", messages: [{ role: "wizard", content: "hi" }] }, new URL(server.url))).toThrow(
      /Not a Chat Completions request/,
    );
  });
});
