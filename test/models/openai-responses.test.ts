import OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelError, type ModelChunk } from "@/lib/agents/model";
import { OpenAIResponsesModel } from "@/lib/agents/models/openai-responses";
import { openAIResponsesWire } from "@/lib/demo/model-server/openai-responses";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { toOpenAIResponsesTool } from "@/lib/integrations/openai/openai-tools";
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
  server = await ScriptedModelServer.start({ formats: [openAIResponsesWire] });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending).toBe(0);
});

const KEY = "sk-test-secret-key";
const model = (options: { maxRetries?: number; fetch?: typeof fetch; maxOutputTokens?: number } = {}) =>
  new OpenAIResponsesModel({ model: "gpt-test", apiKey: KEY, baseUrl: `${server.url}/v1`, maxRetries: 0, ...options });
const texts = (chunks: ModelChunk[], type: "text" | "reasoning") => chunks.flatMap((c) => (c.type === type ? [c.delta] : []));
/** The kinds of chunk in the order they came, a run of one kind counted once. */
const kindsInOrder = (chunks: ModelChunk[]) => chunks.map((c) => c.type).filter((type, at, all) => type !== all[at - 1]);

/** Iterate `model`'s answer into `chunks`, so a test can look at what came before a failure. */
async function drain(chunks: ModelChunk[], signal = new AbortController().signal, onChunk?: () => void): Promise<void> {
  for await (const chunk of model().respond({ messages: hello, tools: [weatherTool], signal })) {
    chunks.push(chunk);
    onChunk?.();
  }
}

describe("OpenAIResponsesModel against the scripted Responses server", () => {
  it("streams a plain answer as several text deltas, stateless, with the system prompt as instructions", async () => {
    server.script({ text: "Hello there, how can I help?", chunk: 6, pauseMs: 15 });
    const chunks = await answer(model(), hello, { system: "Be brief." });
    expect(model().label).toBe("openai-responses:gpt-test");
    // Spaced out, the pieces arrive in reads of their own (one or several pieces a delta).
    expect(texts(chunks, "text").length).toBeGreaterThan(1);
    expect(arrivedAsPieces(texts(chunks, "text"), ["Hello ", "there,", " how c", "an I h", "elp?"])).toBe(true);
    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toEqual({
      model: "gpt-test",
      instructions: "Be brief.",
      input: [{ type: "message", role: "user", content: "Hello" }],
      store: false,
      stream: true,
    });
  });

  it("yields two parallel function calls of one answer in order, with their arguments and call ids", async () => {
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

  it("sends earlier calls and results as function_call and function_call_output items, and read() gives the conversation back", async () => {
    server.script({ text: "Sunny tomorrow." });
    await answer(model(), threadWithToolResults, { system: "You report weather." });
    const body = server.requests[0]!.body;
    expect(body.instructions).toBe("You report weather.");
    expect(body.input).toEqual([
      { type: "message", role: "user", content: "Weather in Paris and Tokyo?" },
      { type: "message", role: "assistant", content: "Let me look." },
      { type: "function_call", call_id: "call_p", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call", call_id: "call_t", name: "get_weather", arguments: '{"city":"Tokyo"}' },
      { type: "function_call_output", call_id: "call_p", output: '{"ok":true,"value":{"temperature":18}}' },
      { type: "function_call_output", call_id: "call_t", output: '{"ok":true,"value":{"temperature":24}}' },
      { type: "message", role: "assistant", content: "Paris 18°, Tokyo 24°." },
      { type: "message", role: "user", content: "Thanks.\nAnd tomorrow?" },
    ]);
    const read = openAIResponsesWire.read(body, new URL(server.url));
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

  it("offers registry tools as the exporter makes them (strict) and client tools from their parameters, and drops strict nulls", async () => {
    server.script({ toolCalls: [{ name: "get_weather", args: { city: "Oslo", unit: null } }] });
    const chunks = await answer(model({ maxOutputTokens: 300 }), hello, { tools: [weatherTool, confirmTool] });
    const body = server.requests[0]!.body;
    expect(body.max_output_tokens).toBe(300);
    expect(body.tools).toEqual([
      toOpenAIResponsesTool(weatherSpec).output,
      {
        type: "function",
        name: "confirm_with_user",
        description: "Ask the person to confirm",
        parameters: confirmTool.parameters,
        strict: false,
      },
    ]);
    expect(body.tools).toMatchInlineSnapshot(`
      [
        {
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
          "type": "function",
        },
        {
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
          "type": "function",
        },
      ]
    `);
    expect(chunks.filter((c) => c.type === "tool_call").map((c) => c.args)).toEqual([{ city: "Oslo" }]);
    expect(openAIResponsesWire.read(body, new URL(server.url)).tools).toEqual([
      {
        name: "get_weather",
        description: weatherSpec.description,
        parameters: toOpenAIResponsesTool(weatherSpec).output.parameters,
        client: false,
      },
      { name: "confirm_with_user", description: confirmTool.description, parameters: confirmTool.parameters, client: false },
    ]);
  });

  it("streams the reasoning summary as reasoning, before the text", async () => {
    server.script({ reasoning: "The user greets me.", text: "Hi!", chunk: 5 });
    const chunks = await answer(model(), hello);
    expect(kindsInOrder(chunks)).toEqual(["reasoning", "text"]);
    expect(texts(chunks, "reasoning").join("")).toBe("The user greets me.");
  });

  it("reports usage from response.completed once, at the end, in AG-UI terms", async () => {
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
    expect(error.message).not.toContain(KEY);
  });

  it("turns a 500 into a ModelError with the status, and retries a 429 within the bound", async () => {
    server.script({ error: { status: 500, message: "The server had an error" } });
    expect((await failure(answer(model(), hello))).message).toBe("OpenAI answered 500: The server had an error");

    server.requests.length = 0;
    server.script({ error: { status: 429, message: "Rate limit reached" } }, { error: { status: 429, message: "Rate limit reached" } });
    const error = await failure(answer(model({ maxRetries: 1, fetch: fetchAddingHeaders(429, { "retry-after-ms": "10" }) }), hello));
    expect(error.message).toBe("OpenAI answered 429: Rate limit reached");
    expect(server.requests).toHaveLength(2);
  });

  it("turns response.failed in the middle of the stream into a ModelError, after the text it had sent", async () => {
    server.script({ text: "Partial", streamError: { status: 500, message: "Upstream overloaded" } });
    const chunks: ModelChunk[] = [];
    const error = await failure(drain(chunks));
    expect(texts(chunks, "text").join("")).toBe("Partial");
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe("OpenAI answered 500: Upstream overloaded");
  });

  it("ends the iteration when the signal aborts mid-stream", async () => {
    server.script({ text: "x".repeat(400), chunk: 1, toolCalls: [{ name: "get_weather", args: { city: "Rome" } }] });
    const controller = new AbortController();
    const chunks: ModelChunk[] = [];
    const error = await failure(
      drain(chunks, controller.signal, () => {
        if (chunks.length === 3) controller.abort(new Error("client went away"));
      }),
    );
    expect(error.message).toBe("client went away");
    expect(chunks).toHaveLength(3);
  });
});

describe("the Responses wire format, read by the openai SDK", () => {
  const client = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });

  it("answers stream: false with one response object", async () => {
    server.script({
      reasoning: "Easy.",
      text: "Calling.",
      toolCalls: [{ name: "get_weather", args: { city: "Lima" } }],
      usage: { input: 10, output: 5, cachedInput: 2 },
    });
    const response = await client().responses.create({ model: "gpt-test", instructions: "Be brief.", input: "Hi" });
    expect(response).toMatchObject({
      object: "response",
      status: "completed",
      model: "gpt-test",
      instructions: "Be brief.",
      output_text: "Calling.",
    });
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(response.output[0]).toMatchObject({ summary: [{ type: "summary_text", text: "Easy." }] });
    expect(response.output[2]).toMatchObject({
      name: "get_weather",
      arguments: '{"city":"Lima"}',
      call_id: expect.stringMatching(/^call_/),
    });
    expect(response.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 2, cache_write_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    });
  });

  it("streams the typed events in order, numbered from 0", async () => {
    server.script({
      reasoning: "Hmm",
      text: "Hi",
      toolCalls: [{ name: "get_weather", args: { city: "Lima" } }],
      usage: { input: 1, output: 2 },
      chunk: 100,
    });
    const stream = await client().responses.create({ model: "gpt-test", input: [{ role: "user", content: "Hi" }], stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const completed = events.at(-1);
    expect(completed?.type === "response.completed" && completed.response.usage?.total_tokens).toBe(3);
  });

  it("reads function calls that follow an assistant message into that message, and refuses unknown input items", () => {
    const read = openAIResponsesWire.read(
      {
        model: "m",
        input: [
          { role: "developer", content: [{ type: "input_text", text: "Rules." }] },
          { role: "user", content: [{ type: "input_text", text: "Go" }] },
          { type: "reasoning", id: "rs_1", summary: [] },
          { type: "function_call", call_id: "c1", name: "a", arguments: "{}" },
          { type: "function_call_output", call_id: "c1", output: "done" },
          { type: "function_call", call_id: "c2", name: "b", arguments: "{}" },
        ],
        tools: [{ type: "web_search" }],
      },
      new URL(server.url),
    );
    expect(read).toEqual({
      model: "m",
      system: "Rules.",
      stream: false,
      tools: [],
      messages: [
        { id: "msg_1", role: "user", content: "Go" },
        { id: "msg_2", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name: "a", arguments: "{}" } }] },
        { id: "msg_3", role: "tool", toolCallId: "c1", content: "done" },
        { id: "msg_4", role: "assistant", toolCalls: [{ id: "c2", type: "function", function: { name: "b", arguments: "{}" } }] },
      ],
    });
    expect(() => openAIResponsesWire.read({ model: "m", input: [{ type: "item_reference", id: "x" }] }, new URL(server.url))).toThrow(
      /does not read input items of type "item_reference"/,
    );
  });
});
