import type { Message } from "@ag-ui/core";
import type { ChatModel, ModelChunk, ModelRequest, ToolDescriptor } from "./model";
import { contentBlocksOf } from "../integrations/content-value";
import { mediaNamed } from "./media-text";

/**
 * The demo agents' model: deterministic rules, no LLM and no key. It reads the last user message
 * for requests it knows ("weather in Paris", "refund order 1234 for 20 EUR", "open a ticket about
 * ...", "calculate ...", "what time is it in ...", `/tool_name {json}`), calls tools for them, and
 * summarises tool results when they come back.
 */
export class ScriptedModel implements ChatModel {
  readonly label = "scripted demo model (no LLM)";

  *respond(request: ModelRequest): Iterable<ModelChunk> {
    const last = request.messages.at(-1);
    if (!last) {
      yield* say(greeting(request.tools));
      return;
    }
    if (last.role === "tool") {
      yield* say(summarise(request.messages));
      return;
    }
    const text = userText(last);
    const stream = /^\/stream\s+(\d{1,7})\s*$/i.exec(text.trim());
    if (stream) {
      const words = Math.max(1, Number(stream[1]));
      yield* longText(words);
      return;
    }
    const calls = planCalls(text, request.tools);
    if ("error" in calls) {
      yield* say(calls.error);
      return;
    }
    if (!calls.length) {
      yield* say(request.tools.length ? help(request.tools) : plainReply(text));
      return;
    }
    const plan = calls.map((c) => `${c.name} with ${JSON.stringify(c.args)}`).join(", then ");
    yield* pieces("reasoning", `The request maps to ${calls.length === 1 ? "one tool call" : `${calls.length} tool calls`}: ${plan}.`);
    yield* pieces("text", calls.length === 1 ? "Let me take care of that." : `Let me take care of those ${calls.length} things.`);
    for (const call of calls) yield { type: "tool_call", name: call.name, args: call.args };
  }
}

type Call = { name: string; args: Record<string, unknown> };

/** The tool calls a user message asks for, in the order it asks; an error for a malformed slash command. */
export function planCalls(text: string, tools: readonly ToolDescriptor[]): Call[] | { error: string } {
  const available = new Set(tools.map((t) => t.name));
  const calls: Call[] = [];
  for (const line of text.split(/\n+/)) {
    const slash = /^\s*\/([a-zA-Z_][a-zA-Z0-9_-]{0,63})(?:\s+([\s\S]*))?$/.exec(line);
    if (!slash) continue;
    const [, name, rawArgs] = slash;
    let args: unknown = {};
    if (rawArgs?.trim()) {
      try {
        args = JSON.parse(rawArgs);
      } catch {
        return { error: `I could not read the arguments of /${name}: they must be a JSON object, e.g. /${name} {"key": "value"}.` };
      }
    }
    if (args === null || typeof args !== "object" || Array.isArray(args))
      return { error: `The arguments of /${name} must be a JSON object.` };
    calls.push({ name: name!, args: args as Record<string, unknown> });
  }
  if (calls.length) return calls;

  for (const clause of clauses(text)) {
    const weather = /\bweather\b.*?\b(?:in|for|at)\s+(.+)$/i.exec(clause) ?? /^\s*(?:and\s+)?(?:in|for)\s+(.+)$/i.exec(clause);
    if (weather && available.has("get_weather") && (/\bweather\b/i.test(clause) || calls.at(-1)?.name === "get_weather")) {
      for (const city of weather[1]!.split(/\s*(?:,|\band\b|&)\s*/i)) {
        const name = city.replace(/[?!.]+$/, "").trim();
        if (name) calls.push({ name: "get_weather", args: { city: titleCase(name) } });
      }
      continue;
    }
    const refund = refundAsked(clause);
    if (refund && available.has("issue_refund")) {
      calls.push({ name: "issue_refund", args: refund });
      continue;
    }
    const ticket =
      /\b(?:open|create|file|raise|log)\s+(?:a\s+|an\s+)?(?:new\s+)?(?:support\s+)?ticket\b\s*(?:about|for|regarding|on|:)?\s*(.*)$/i.exec(
        clause,
      );
    if (ticket && available.has("create_ticket")) {
      const title = ticket[1]!.replace(/[.!]+$/, "").trim() || "Support request";
      calls.push({ name: "create_ticket", args: { title: title.length < 3 ? `Ticket: ${title}` : capitalise(title).slice(0, 200) } });
      continue;
    }
    const math =
      /\b(?:calculate|compute|evaluate|what(?:'s| is))\s+([-+*/^%().,\d\s]*\d[-+*/^%().,\d\s]*|(?:sqrt|abs|round|min|max)\s*\(.*\).*)$/i.exec(
        clause,
      );
    if (math && available.has("calculate")) {
      calls.push({ name: "calculate", args: { expression: math[1]!.replace(/[?=]+\s*$/, "").trim() } });
      continue;
    }
    const time =
      /\b(?:what time is it|current time|time now|what's the time|what is the time)\b(?:.*?\bin\s+([A-Za-z_]+(?:\/[A-Za-z_+-]+)+))?/i.exec(
        clause,
      );
    if (time && available.has("current_time")) {
      calls.push({ name: "current_time", args: time[1] ? { timezone: time[1] } : {} });
    }
  }
  return calls;
}

/**
 * The refund a clause asks for, order first ("refund order 1234 for 20 EUR", "refund 1234 for 20")
 * or amount first, where the word "order" tells the two numbers apart ("refund 20 EUR on order
 * 1234", "refund €20 for order 1234"). The word "order" is never the order: "refund order 42" names
 * no amount (it once read as 42 EUR on an order called "order").
 */
function refundAsked(clause: string): { orderId: string; amount: number; currency: string } | undefined {
  const amountFirst =
    /\brefund\b\s+(?:of\s+)?([€$£])?\s*(\d+(?:[.,]\d{1,2})?)\s*([A-Za-z]{3}\b|€|\$|£)?\s+(?:on|for|to)\s+order\s+#?([A-Za-z0-9-]+)/i.exec(
      clause,
    );
  if (amountFirst)
    return { orderId: amountFirst[4]!, amount: amount(amountFirst[2]!), currency: currency(amountFirst[3] ?? amountFirst[1]) };
  const orderFirst =
    /\brefund\b(?:\s+(?:for\s+)?order)?\s+#?(?!order\b)([A-Za-z0-9-]+)\s+(?:for|of|by)?\s*(\d+(?:[.,]\d{1,2})?)\s*([A-Za-z]{3}|€|\$|£)?/i.exec(
      clause,
    );
  if (orderFirst) return { orderId: orderFirst[1]!, amount: amount(orderFirst[2]!), currency: currency(orderFirst[3]) };
  return undefined;
}

const amount = (text: string): number => Number(text.replace(",", "."));

/** Split a message into requests: "weather in Paris and refund order 12 for 5 EUR" is two. */
function clauses(text: string): string[] {
  return text
    .split(
      /\s*(?:[;\n]|\.\s+|\band then\b|\bthen\b|\balso\b|,?\s+and\s+(?=(?:refund|open|create|file|raise|log|calculate|compute|evaluate|what|tell|give|the weather|weather)\b))\s*/i,
    )
    .filter((c) => c.trim());
}

function summarise(messages: readonly Message[]): string {
  const start = messages.findLastIndex((m) => m.role === "user");
  const names = new Map<string, string>();
  for (const m of messages.slice(start + 1))
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) names.set(c.id, c.function.name);
  const lines: string[] = [];
  for (const m of messages.slice(start + 1)) {
    if (m.role !== "tool") continue;
    lines.push(describe(names.get(m.toolCallId) ?? "the tool", typeof m.content === "string" ? m.content : ""));
  }
  if (!lines.length) return "Done.";
  return lines.length === 1 ? lines[0]! : `Here is what happened:\n\n${lines.map((l) => `- ${l}`).join("\n")}`;
}

function describe(tool: string, content: string): string {
  let result: { ok?: boolean; value?: Record<string, unknown>; error?: { kind?: string; message?: string; reason?: string } };
  try {
    result = JSON.parse(content);
  } catch {
    return `${tool} answered: ${content.slice(0, 300)}`;
  }
  if (result.ok === false) {
    const error = result.error ?? {};
    switch (error.kind) {
      case "denied":
        return `I did not run ${tool}: the call was denied${error.reason ? ` (reason: ${error.reason})` : ""}.`;
      case "cancelled":
        return `The ${tool} call was cancelled, so nothing happened.`;
      case "approval_expired":
        return `Nobody approved the ${tool} call in time, so it did not run.`;
      case "outcome_unknown":
        return `I cannot tell whether ${tool} ran: the console stopped while the call was running, before its outcome was recorded. Please check before asking for it again.`;
      default:
        return `${tool} failed: ${error.message ?? "unknown error"}`;
    }
  }
  const v = result.value ?? {};
  switch (tool) {
    case "get_weather":
      return `In ${v.city} it is ${v.temperature}°${v.unit === "fahrenheit" ? "F" : "C"} and ${v.conditions} (humidity ${v.humidity}%, wind ${v.windKph} km/h).`;
    case "calculate":
      return `${v.expression} = ${v.result}`;
    case "current_time":
      return `It is ${v.local} (${v.timezone}).`;
    case "create_ticket":
      return `I opened ticket ${v.ticketId}: “${v.title}” (priority ${v.priority}).`;
    case "issue_refund":
      return `Refund ${v.refundId} issued: ${v.amount} ${v.currency} for order ${v.orderId}.`;
    default: {
      const blocks = contentWords(result.value);
      if (blocks) return `${tool} answered: ${blocks}`.slice(0, 500);
      return `${tool} returned ${JSON.stringify(mediaNamed(result.value)).slice(0, 500)}`;
    }
  }
}

/** A value made of MCP content blocks (an imported tool's image, say) in words: its text, and what else it holds, named. */
function contentWords(value: unknown): string | undefined {
  return contentBlocksOf(value)
    ?.map((block) => {
      switch (block.type) {
        case "text":
          return block.text;
        case "image":
        case "audio":
          return `[${block.mimeType} ${block.type}, shown above]`;
        case "resource":
          return `[resource ${block.resource.uri}]`;
        case "resource_link":
          return `[link to ${block.name}]`;
      }
    })
    .join(" ");
}

function help(tools: readonly ToolDescriptor[]): string {
  return [
    "I am the demo agent, running a scripted model (no LLM, no key). I understand requests like:",
    "",
    "- “weather in Paris” (or “weather in Paris and Tokyo”)",
    "- “refund order 1234 for 20 EUR” (asks for approval)",
    "- “open a ticket about the broken printer” (asks for approval)",
    "- “calculate (2 + 3) * 4”",
    "- “what time is it in Asia/Tokyo”",
    '- `/tool_name {"arg": "value"}` for any tool, one per line',
    "",
    `Tools I can call: ${tools.map((t) => `\`${t.name}\``).join(", ")}.`,
  ].join("\n");
}

function greeting(tools: readonly ToolDescriptor[]): string {
  return tools.length ? help(tools) : "Hello! I am the plain chat demo: a scripted model with no tools.";
}

function plainReply(text: string): string {
  const asksForTools = /\b(weather|refund|ticket|calculate|time)\b/i.test(text);
  return asksForTools
    ? "I am the plain chat demo: a scripted model with no tools, so I cannot do that. The “demo” agent has tools for it."
    : `You said: “${text.slice(0, 500)}”. I am the plain chat demo (a scripted model with no tools): I can only talk.`;
}

function* say(text: string): Generator<ModelChunk> {
  yield* pieces("text", text);
}

function* pieces(type: "text" | "reasoning", text: string): Generator<ModelChunk> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + 8);
    const space = text.indexOf(" ", end);
    if (space !== -1 && space - at < 16) end = space + 1;
    yield { type, delta: text.slice(at, end) };
    at = end;
  }
}

function* longText(words: number): Generator<ModelChunk> {
  const vocabulary = [
    "agents",
    "call",
    "tools",
    "and",
    "people",
    "approve",
    "them",
    "while",
    "the",
    "console",
    "streams",
    "every",
    "event",
  ];
  for (let i = 0; i < words; i++) yield { type: "text", delta: `${vocabulary[i % vocabulary.length]}${i === words - 1 ? "." : " "}` };
}

function userText(message: Message): string {
  if (message.role !== "user") return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
}

function titleCase(text: string): string {
  return text.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function currency(symbol: string | undefined): string {
  if (!symbol) return "EUR";
  return ({ "€": "EUR", $: "USD", "£": "GBP" } as Record<string, string>)[symbol] ?? symbol.toUpperCase();
}
