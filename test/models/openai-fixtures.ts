import type { Message } from "@ag-ui/core";
import type { ChatModel, ModelChunk, ToolDescriptor } from "@/lib/agents/model";
import { resolvePolicy, type ToolSpec } from "@/lib/tools/spec";

/** A registry tool whose optional `unit` strict mode turns into a nullable required property. */
export const weatherSpec: ToolSpec = {
  name: "get_weather",
  title: "Weather",
  description: "Current weather for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
    required: ["city"],
  },
  policy: resolvePolicy({}),
  kind: "builtin",
};

export const weatherTool: ToolDescriptor = {
  name: weatherSpec.name,
  description: weatherSpec.description,
  parameters: weatherSpec.inputSchema,
  client: false,
  spec: weatherSpec,
};

/** A tool the browser runs (RunAgentInput.tools): no registry spec, offered from its parameters. */
export const confirmTool: ToolDescriptor = {
  name: "confirm_with_user",
  description: "Ask the person to confirm",
  parameters: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
  client: true,
};

/** A thread with an earlier turn that called two tools and got their results. */
export const threadWithToolResults: Message[] = [
  { id: "u1", role: "user", content: "Weather in Paris and Tokyo?" },
  { id: "r1", role: "reasoning", content: "Two cities, two calls." },
  {
    id: "a1",
    role: "assistant",
    content: "Let me look.",
    toolCalls: [
      { id: "call_p", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "call_t", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
    ],
  },
  { id: "t1", role: "tool", toolCallId: "call_p", content: '{"ok":true,"value":{"temperature":18}}' },
  { id: "t2", role: "tool", toolCallId: "call_t", content: '{"ok":true,"value":{"temperature":24}}' },
  { id: "a2", role: "assistant", content: "Paris 18°, Tokyo 24°." },
  {
    id: "u2",
    role: "user",
    content: [
      { type: "text", text: "Thanks." },
      { type: "text", text: "And tomorrow?" },
    ],
  },
];

/** Every chunk of a model's answer to `messages`. */
export async function answer(
  model: ChatModel,
  messages: Message[],
  options: { tools?: ToolDescriptor[]; system?: string; signal?: AbortSignal } = {},
): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = [];
  const request = { messages, tools: options.tools ?? [], system: options.system, signal: options.signal ?? new AbortController().signal };
  for await (const chunk of model.respond(request)) chunks.push(chunk);
  return chunks;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

export const hello: Message[] = [{ id: "u1", role: "user", content: "Hello" }];

/** A fetch that adds `headers` to every answer of status `status` (a provider's rate-limit hints, say). */
export function fetchAddingHeaders(status: number, headers: Record<string, string>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status !== status) return response;
    const merged = new Headers(response.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
  };
}
