import type { AgentSkill } from "@a2a-js/sdk";
import type { Tool as AnthropicSdkTool, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { FunctionDeclaration, Part, Schema, Type } from "@google/genai";
import { tool as langchainTool, type StructuredToolInterface } from "@langchain/core/tools";
import type { Tool as McpSdkTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolSchema as McpToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type { FunctionTool } from "openai/resources/responses/responses";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toA2ASkill, toA2ASkills } from "@/lib/integrations/a2a";
import { toAnthropicTool, toAnthropicToolResults, toAnthropicTools } from "@/lib/integrations/anthropic";
import { runFunctionCalls, stableCallId, toGeminiFunctionDeclaration, toGeminiFunctionDeclarations } from "@/lib/integrations/gemini";
import { importLangChainTools, toLangChainTool, ToolException } from "@/lib/integrations/langchain";
import { toMcpTool, toMcpTools } from "@/lib/integrations/mcp";
import {
  dropStrictNulls,
  toOpenAIChatTool,
  toOpenAIChatTools,
  toOpenAIResponsesTool,
  toOpenAIResponsesTools,
} from "@/lib/integrations/openai";
import { DuplicateTool, ToolUsageError, type JsonSchema, type RegisteredTool } from "@/lib/tools";
import { demoTools } from "@/lib/demo/tools";
import { testServices } from "../support/services";

const services = testServices();
afterAll(() => services.close());
const { registry, executor } = services;
const DEMO = new Set(demoTools.map((t) => t.spec.name));
const demo = () => registry.all().filter((t) => DEMO.has(t.name));

/** Gemini's Schema with `type` as the enum's string values, so plain JSON can be checked against it. */
type GeminiJsonSchema = Omit<Schema, "type" | "items" | "properties" | "anyOf"> & {
  type?: `${Type}`;
  items?: GeminiJsonSchema;
  properties?: Record<string, GeminiJsonSchema>;
  anyOf?: GeminiJsonSchema[];
};

async function addTool(
  name: string,
  inputSchema: JsonSchema,
  extra: Partial<Parameters<typeof registry.add>[0]> = {},
): Promise<RegisteredTool> {
  return registry.add({ name, description: `Tricky ${name}`, inputSchema, ...extra }, (args) => ({ echoed: args }));
}

const recursive = await addTool("tree_walk", {
  type: "object",
  properties: { root: { $ref: "#/$defs/Node" }, depth: { type: "integer", minimum: 1, default: 3 } },
  required: ["root"],
  $defs: {
    Node: {
      type: "object",
      properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      required: ["label"],
    },
  },
});
const openMap = await addTool("set_labels", {
  type: "object",
  properties: { labels: { type: "object", additionalProperties: { type: "string" } } },
  required: ["labels"],
});
const unions = await addTool("pick_shape", {
  type: "object",
  properties: {
    shape: {
      oneOf: [
        { type: "object", properties: { radius: { type: "number" } }, required: ["radius"] },
        { type: "object", properties: { side: { type: "number" } }, required: ["side"] },
      ],
    },
    mode: { const: "fast" },
    code: { type: "integer", enum: [1, 2, 3] },
    note: { type: ["string", "null"] },
  },
  required: ["shape"],
});
const scalarOut = await addTool(
  "count_words",
  { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  { outputSchema: { type: "integer" } },
);
const mcpOnly = await addTool("mcp_only", { type: "object", properties: {} }, { policy: { targets: ["mcp"] } });

describe("OpenAI", () => {
  it("exports the demo tools for Chat Completions in strict mode", () => {
    const { output, warnings } = toOpenAIChatTools(demo());
    const typed: ChatCompletionFunctionTool[] = output;
    expect(typed).toMatchInlineSnapshot(`
      [
        {
          "function": {
            "description": "Evaluate an arithmetic expression: + - * / % ^, parentheses, pi, e, sqrt, abs, round, min, max, ln, log10, sin, cos, tan.",
            "name": "calculate",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "expression": {
                  "description": "e.g. (2 + 3) * 4 ^ 2 (minLength: 1, maxLength: 500)",
                  "type": "string",
                },
              },
              "required": [
                "expression",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "function",
        },
        {
          "function": {
            "description": "Open a support ticket. Each run opens a new ticket, so it asks for approval first.",
            "name": "create_ticket",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "description": {
                  "description": "Details (default: "", maxLength: 5000)",
                  "type": [
                    "string",
                    "null",
                  ],
                },
                "priority": {
                  "description": "(default: "normal")",
                  "enum": [
                    "low",
                    "normal",
                    "high",
                    "urgent",
                    null,
                  ],
                  "type": [
                    "string",
                    "null",
                  ],
                },
                "title": {
                  "description": "One-line summary (minLength: 3, maxLength: 200)",
                  "type": "string",
                },
              },
              "required": [
                "title",
                "description",
                "priority",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "function",
        },
        {
          "function": {
            "description": "The current date and time, in a given IANA time zone (UTC by default).",
            "name": "current_time",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "timezone": {
                  "description": "IANA time zone, e.g. Europe/Paris (default: "UTC", minLength: 1, maxLength: 64)",
                  "type": [
                    "string",
                    "null",
                  ],
                },
              },
              "required": [
                "timezone",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "function",
        },
        {
          "function": {
            "description": "Current weather for a city (demo data: made up, but the same for the same city).",
            "name": "get_weather",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "description": "City name, e.g. Paris (minLength: 1, maxLength: 100)",
                  "type": "string",
                },
                "unit": {
                  "description": "Temperature unit (default: "celsius")",
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
            "description": "Refund an order. Money leaves the account: every call waits for a person's approval.",
            "name": "issue_refund",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "amount": {
                  "description": "Amount to refund",
                  "exclusiveMinimum": 0,
                  "maximum": 100000,
                  "type": "number",
                },
                "currency": {
                  "description": "(default: "EUR")",
                  "pattern": "^[A-Z]{3}$",
                  "type": [
                    "string",
                    "null",
                  ],
                },
                "orderId": {
                  "description": "Order number, e.g. 1234",
                  "pattern": "^[A-Za-z0-9-]{1,40}$",
                  "type": "string",
                },
                "reason": {
                  "description": "(maxLength: 500)",
                  "type": [
                    "string",
                    "null",
                  ],
                },
              },
              "required": [
                "orderId",
                "amount",
                "currency",
                "reason",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "function",
        },
      ]
    `);
    expect(warnings).toMatchInlineSnapshot(`
      [
        {
          "message": "strict mode: /properties/expression: minLength, maxLength moved to the description",
          "tool": "calculate",
        },
        {
          "message": "strict mode: /properties/title: minLength, maxLength moved to the description",
          "tool": "create_ticket",
        },
        {
          "message": "strict mode: /properties/description: default, maxLength moved to the description",
          "tool": "create_ticket",
        },
        {
          "message": "strict mode: /properties/priority: default moved to the description",
          "tool": "create_ticket",
        },
        {
          "message": "strict mode: /: optional description, priority became required and nullable (null means left out)",
          "tool": "create_ticket",
        },
        {
          "message": "strict mode: /properties/timezone: default, minLength, maxLength moved to the description",
          "tool": "current_time",
        },
        {
          "message": "strict mode: /: optional timezone became required and nullable (null means left out)",
          "tool": "current_time",
        },
        {
          "message": "strict mode: /properties/city: minLength, maxLength moved to the description",
          "tool": "get_weather",
        },
        {
          "message": "strict mode: /properties/unit: default moved to the description",
          "tool": "get_weather",
        },
        {
          "message": "strict mode: /: optional unit became required and nullable (null means left out)",
          "tool": "get_weather",
        },
        {
          "message": "strict mode: /properties/currency: default moved to the description",
          "tool": "issue_refund",
        },
        {
          "message": "strict mode: /properties/reason: maxLength moved to the description",
          "tool": "issue_refund",
        },
        {
          "message": "strict mode: /: optional currency, reason became required and nullable (null means left out)",
          "tool": "issue_refund",
        },
      ]
    `);
  });

  it("exports the same tools flat for the Responses API", () => {
    const { output } = toOpenAIResponsesTools(demo());
    const typed: FunctionTool[] = output;
    expect(typed.map((t) => [t.type, t.name, t.strict])).toEqual(demo().map((t) => ["function", t.name, true]));
    expect(typed[0]).toEqual({
      type: "function",
      name: output[0]!.name,
      description: output[0]!.description,
      parameters: toOpenAIChatTools(demo()).output[0]!.function.parameters,
      strict: true,
    });
  });

  it("keeps recursion through $defs strict, and turns oneOf into anyOf", () => {
    expect(toOpenAIChatTool(recursive).output.function).toMatchInlineSnapshot(`
      {
        "description": "Tricky tree_walk",
        "name": "tree_walk",
        "parameters": {
          "$defs": {
            "Node": {
              "additionalProperties": false,
              "properties": {
                "children": {
                  "items": {
                    "$ref": "#/$defs/Node",
                  },
                  "type": [
                    "array",
                    "null",
                  ],
                },
                "label": {
                  "type": "string",
                },
              },
              "required": [
                "label",
                "children",
              ],
              "type": "object",
            },
          },
          "additionalProperties": false,
          "properties": {
            "depth": {
              "description": "(default: 3)",
              "minimum": 1,
              "type": [
                "integer",
                "null",
              ],
            },
            "root": {
              "$ref": "#/$defs/Node",
            },
          },
          "required": [
            "root",
            "depth",
          ],
          "type": "object",
        },
        "strict": true,
      }
    `);
    const union = toOpenAIResponsesTool(unions);
    expect(union.output.strict).toBe(true);
    expect(union.output.parameters).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "code": {
            "enum": [
              1,
              2,
              3,
              null,
            ],
            "type": [
              "integer",
              "null",
            ],
          },
          "mode": {
            "anyOf": [
              {
                "const": "fast",
              },
              {
                "type": "null",
              },
            ],
          },
          "note": {
            "type": [
              "string",
              "null",
            ],
          },
          "shape": {
            "anyOf": [
              {
                "additionalProperties": false,
                "properties": {
                  "radius": {
                    "type": "number",
                  },
                },
                "required": [
                  "radius",
                ],
                "type": "object",
              },
              {
                "additionalProperties": false,
                "properties": {
                  "side": {
                    "type": "number",
                  },
                },
                "required": [
                  "side",
                ],
                "type": "object",
              },
            ],
          },
        },
        "required": [
          "shape",
          "mode",
          "code",
          "note",
        ],
        "type": "object",
      }
    `);
    expect(union.warnings.map((w) => w.message)).toContain("strict mode: /properties/shape: oneOf became anyOf");
  });

  it("says strict: false, with a warning and the schema unchanged, when a schema cannot be strict", () => {
    const result = toOpenAIChatTool(openMap);
    expect(result.output).toEqual({
      type: "function",
      function: { name: "set_labels", description: "Tricky set_labels", parameters: openMap.inputSchema, strict: false },
    });
    expect(result.warnings).toEqual([
      {
        tool: "set_labels",
        message:
          "exported with strict: false: Schema at `/properties/labels` is an open map (additionalProperties), which strict mode cannot express",
      },
    ]);
    expect(toOpenAIChatTool(openMap, { strict: false })).toEqual({ output: result.output, warnings: [] });
  });

  it("drops the nulls a strict model sends for left-out arguments, keeping nulls the schema accepts", () => {
    const weather = registry.get("get_weather")!;
    expect(dropStrictNulls(weather.inputSchema, { city: "Paris", unit: null })).toEqual({ city: "Paris" });
    expect(dropStrictNulls(unions.inputSchema, { shape: { radius: 1 }, note: null, mode: null })).toEqual({
      shape: { radius: 1 },
      note: null,
    });
    expect(
      dropStrictNulls(recursive.inputSchema, { root: { label: "a", children: [{ label: "b", children: null }] }, depth: null }),
    ).toEqual({ root: { label: "a", children: [{ label: "b" }] } });
  });
});

describe("Anthropic", () => {
  it("exports the demo tools for the Messages API, caching the list on the last one", () => {
    const { output, warnings } = toAnthropicTools(demo(), { cache: true });
    const typed: AnthropicSdkTool[] = output;
    expect(warnings).toEqual([]);
    expect(typed[0]).toMatchInlineSnapshot(`
      {
        "description": "Evaluate an arithmetic expression: + - * / % ^, parentheses, pi, e, sqrt, abs, round, min, max, ln, log10, sin, cos, tan.",
        "input_schema": {
          "additionalProperties": false,
          "properties": {
            "expression": {
              "description": "e.g. (2 + 3) * 4 ^ 2",
              "maxLength": 500,
              "minLength": 1,
              "type": "string",
            },
          },
          "required": [
            "expression",
          ],
          "type": "object",
        },
        "name": "calculate",
      }
    `);
    expect(typed.map((t) => t.cache_control)).toEqual([undefined, undefined, undefined, undefined, { type: "ephemeral" }]);
    expect(toAnthropicTool(recursive).output.input_schema).toEqual(recursive.inputSchema);
  });

  it("answers tool_use blocks with tool_result blocks in order, failures as is_error", async () => {
    const ok = await executor.call("calculate", { expression: "6 * 7" });
    const bad = await executor.call("calculate", { expression: "6 *" });
    const text = await executor.call("tree_walk", { root: { label: "x" } });
    const blocks = toAnthropicToolResults([
      { toolUseId: "toolu_1", toolName: "calculate", result: ok },
      { toolUseId: "toolu_2", toolName: "calculate", result: bad },
      { toolUseId: "toolu_3", toolName: "tree_walk", result: text },
    ]);
    const typed: ToolResultBlockParam[] = blocks;
    expect(typed).toMatchInlineSnapshot(`
      [
        {
          "content": "{"expression":"6 * 7","result":42}",
          "tool_use_id": "toolu_1",
          "type": "tool_result",
        },
        {
          "content": "{"error":{"kind":"tool_error","message":"Cannot evaluate \\"6 *\\": The expression ends too early at position 4"}}",
          "is_error": true,
          "tool_use_id": "toolu_2",
          "type": "tool_result",
        },
        {
          "content": "{"echoed":{"root":{"label":"x"}}}",
          "tool_use_id": "toolu_3",
          "type": "tool_result",
        },
      ]
    `);
  });

  it("refuses to answer a call that still waits for approval", async () => {
    const pending = await executor.call("issue_refund", { orderId: "1", amount: 1 });
    expect(() => toAnthropicToolResults([{ toolUseId: "toolu_9", toolName: "issue_refund", result: pending }])).toThrow(
      /waits for approval/,
    );
  });
});

describe("Gemini", () => {
  it("exports the demo tools with parametersJsonSchema by default", () => {
    const { output } = toGeminiFunctionDeclarations(demo());
    const typed: FunctionDeclaration[] = output;
    expect(typed[1]).toMatchInlineSnapshot(`
      {
        "description": "Open a support ticket. Each run opens a new ticket, so it asks for approval first.",
        "name": "create_ticket",
        "parametersJsonSchema": {
          "additionalProperties": false,
          "properties": {
            "description": {
              "default": "",
              "description": "Details",
              "maxLength": 5000,
              "type": "string",
            },
            "priority": {
              "default": "normal",
              "enum": [
                "low",
                "normal",
                "high",
                "urgent",
              ],
              "type": "string",
            },
            "title": {
              "description": "One-line summary",
              "maxLength": 200,
              "minLength": 3,
              "type": "string",
            },
          },
          "required": [
            "title",
          ],
          "type": "object",
        },
        "responseJsonSchema": {
          "additionalProperties": false,
          "properties": {
            "createdAt": {
              "type": "string",
            },
            "priority": {
              "type": "string",
            },
            "status": {
              "const": "open",
              "type": "string",
            },
            "ticketId": {
              "type": "string",
            },
            "title": {
              "type": "string",
            },
          },
          "required": [
            "ticketId",
            "title",
            "priority",
            "status",
            "createdAt",
          ],
          "type": "object",
        },
      }
    `);
  });

  it("exports the legacy parameters subset on request, saying what it had to drop", () => {
    const weather = toGeminiFunctionDeclaration(registry.get("get_weather")!, { legacy: true });
    const parameters: GeminiJsonSchema = weather.output.parameters;
    expect(parameters).toMatchInlineSnapshot(`
      {
        "properties": {
          "city": {
            "description": "City name, e.g. Paris",
            "maxLength": "100",
            "minLength": "1",
            "type": "STRING",
          },
          "unit": {
            "default": "celsius",
            "description": "Temperature unit",
            "enum": [
              "celsius",
              "fahrenheit",
            ],
            "format": "enum",
            "type": "STRING",
          },
        },
        "required": [
          "city",
        ],
        "type": "OBJECT",
      }
    `);
    expect(weather.warnings).toEqual([]);
    const tricky = toGeminiFunctionDeclaration(unions, { legacy: true });
    expect(tricky.output.parameters).toMatchInlineSnapshot(`
      {
        "properties": {
          "code": {
            "description": "One of: 1, 2, 3.",
            "type": "INTEGER",
          },
          "mode": {
            "enum": [
              "fast",
            ],
            "type": "STRING",
          },
          "note": {
            "nullable": true,
            "type": "STRING",
          },
          "shape": {
            "anyOf": [
              {
                "properties": {
                  "radius": {
                    "type": "NUMBER",
                  },
                },
                "required": [
                  "radius",
                ],
                "type": "OBJECT",
              },
              {
                "properties": {
                  "side": {
                    "type": "NUMBER",
                  },
                },
                "required": [
                  "side",
                ],
                "type": "OBJECT",
              },
            ],
          },
        },
        "required": [
          "shape",
        ],
        "type": "OBJECT",
      }
    `);
    expect(tricky.warnings.map((w) => w.message)).toEqual([
      "legacy schema: parameters /properties/code: enum of non-strings dropped (Gemini enums hold strings only)",
    ]);
    const tree = toGeminiFunctionDeclaration(recursive, { legacy: true });
    expect(tree.warnings.map((w) => w.message)).toEqual([
      "legacy schema: parameters /properties/root/properties/children/items: recursive #/$defs/Node cut to a plain object",
    ]);
    const scalar = toGeminiFunctionDeclaration(scalarOut, { legacy: true });
    const response: GeminiJsonSchema | undefined = scalar.output.response;
    expect(response).toEqual({ type: "INTEGER" });
  });

  it("runs a batch of function calls in order, with stable ids for calls without one", async () => {
    const calls = [
      { name: "calculate", args: { expression: "1 + 1" } },
      { functionCall: { id: "given-id", name: "calculate", args: { expression: "2 *" } } },
      { name: "calculate", args: { expression: "1 + 1" } },
      { name: "mcp_only", args: {} },
      { name: "no_such_tool", args: {} },
    ];
    const ctx = { runId: "gemini-run-1", principal: "local" };
    const parts = await runFunctionCalls(calls, executor, ctx);
    const typed: Part[] = parts;
    expect(typed).toEqual([
      {
        functionResponse: {
          id: stableCallId("calculate", { expression: "1 + 1" }, 0),
          name: "calculate",
          response: { output: { expression: "1 + 1", result: 2 } },
        },
      },
      {
        functionResponse: {
          id: "given-id",
          name: "calculate",
          response: { error: { kind: "tool_error", message: 'Cannot evaluate "2 *": The expression ends too early at position 4' } },
        },
      },
      {
        functionResponse: {
          id: stableCallId("calculate", { expression: "1 + 1" }, 1),
          name: "calculate",
          response: { output: { expression: "1 + 1", result: 2 } },
        },
      },
      {
        functionResponse: {
          id: stableCallId("mcp_only", {}, 0),
          name: "mcp_only",
          response: { error: { kind: "tool_not_found", message: 'No tool named "mcp_only" is available' } },
        },
      },
      {
        functionResponse: {
          id: stableCallId("no_such_tool", {}, 0),
          name: "no_such_tool",
          response: { error: { kind: "tool_not_found", message: 'No tool named "no_such_tool" is available' } },
        },
      },
    ]);
    expect(parts[0]!.functionResponse.id).not.toBe(parts[2]!.functionResponse.id);
    // The same turn again gets the same ids (key order of the arguments does not matter).
    const again = await runFunctionCalls([{ name: "calculate", args: { expression: "1 + 1" } }], executor, ctx);
    expect(again[0]!.functionResponse.id).toBe(parts[0]!.functionResponse.id);
    await expect(runFunctionCalls([{ args: {} } as never], executor)).rejects.toThrow(ToolUsageError);
  });

  it("answers from the record when a batch stopped by an approval is repeated after the decision", async () => {
    const ctx = { runId: "gemini-run-2", principal: "alice" };
    const calls = [{ name: "create_ticket", args: { title: "Broken printer" } }];
    const error = await runFunctionCalls(calls, executor, ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ApprovalPending" });
    await services.approvals.decide((error as { approvalId: string }).approvalId, { approved: true, decidedBy: "operator" });
    const [first] = await runFunctionCalls(calls, executor, ctx);
    const [second] = await runFunctionCalls(calls, executor, ctx);
    expect(first!.functionResponse.response.output).toMatchObject({ title: "Broken printer", status: "open" });
    expect(second).toEqual(first);
  });
});

describe("LangChain", () => {
  it("exports a registry tool as a StructuredTool that runs through the executor", async () => {
    const { output } = toLangChainTool(registry.get("calculate")!, executor);
    const typed: StructuredToolInterface = output;
    expect(typed.name).toBe("calculate");
    expect(typed.schema).toEqual(registry.get("calculate")!.inputSchema);
    const message = await output.invoke({ type: "tool_call", id: "call_1", name: "calculate", args: { expression: "6 * 7" } });
    expect({ content: message.content, artifact: message.artifact, id: message.tool_call_id }).toEqual({
      content: '{"expression":"6 * 7","result":42}',
      artifact: { expression: "6 * 7", result: 42 },
      id: "call_1",
    });
    const error = await output
      .invoke({ type: "tool_call", id: "call_2", name: "calculate", args: { expression: "6 *" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolException);
    expect(error).toMatchObject({ errorKind: "tool_error", message: 'Cannot evaluate "6 *": The expression ends too early at position 4' });
  });

  it("imports LangChain tools all or nothing, checking arguments before the call and turning ToolException into ToolError", async () => {
    const calls: unknown[] = [];
    const divide = langchainTool(
      async ({ a, b }: { a: number; b: number }) => {
        calls.push({ a, b });
        if (b === 0) throw new ToolException("cannot divide by zero");
        return a / b;
      },
      {
        name: "divide.numbers",
        description: "Divide a by b",
        schema: z.object({ a: z.number(), b: z.number().refine((n) => Number.isFinite(n), "must be finite") }),
      },
    );
    const shout = langchainTool(async (input: string) => input.toUpperCase(), { name: "shout", description: "Shout", schema: z.string() });
    const before = registry.count();
    await expect(importLangChainTools(registry, [divide, { name: "not a tool" }], { prefix: "lc_" })).rejects.toThrow(
      /Item 1 is not a LangChain tool/,
    );
    await expect(
      importLangChainTools(registry, [
        divide,
        langchainTool(async () => 1, { name: "calculate", description: "clash", schema: z.object({}) }),
      ]),
    ).rejects.toThrow(DuplicateTool);
    expect(registry.count()).toBe(before);

    const added = await importLangChainTools(registry, [divide, shout], { prefix: "lc_", policy: { effects: "read" } });
    expect(added.map((t) => [t.name, t.kind])).toEqual([
      ["lc_divide_numbers", "langchain"],
      ["lc_shout", "langchain"],
    ]);
    expect(added[0]!.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(await executor.call("lc_divide_numbers", { a: 6, b: 3 })).toEqual({ ok: true, value: 2 });
    expect(await executor.call("lc_divide_numbers", { a: 6, b: 0 })).toEqual({
      ok: false,
      error: { kind: "tool_error", message: "cannot divide by zero" },
    });
    expect(await executor.call("lc_divide_numbers", { a: 6, b: "x" })).toMatchObject({ ok: false, error: { kind: "invalid_arguments" } });
    expect(calls).toEqual([
      { a: 6, b: 3 },
      { a: 6, b: 0 },
    ]);
    expect(await executor.call("lc_shout", { input: "hi" })).toEqual({ ok: true, value: "HI" });
  });
});

describe("MCP", () => {
  it("exports the demo tools with annotations from the policy", () => {
    const { output } = toMcpTools(demo());
    const typed: McpSdkTool[] = output;
    for (const definition of typed) expect(McpToolSchema.safeParse(definition).success).toBe(true);
    expect(typed.find((t) => t.name === "issue_refund")).toMatchInlineSnapshot(`
      {
        "_meta": {
          "agui-console/confirm": true,
        },
        "annotations": {
          "destructiveHint": true,
          "idempotentHint": false,
          "openWorldHint": false,
          "readOnlyHint": false,
          "title": "Issue refund",
        },
        "description": "Refund an order. Money leaves the account: every call waits for a person's approval.",
        "inputSchema": {
          "additionalProperties": false,
          "properties": {
            "amount": {
              "description": "Amount to refund",
              "exclusiveMinimum": 0,
              "maximum": 100000,
              "type": "number",
            },
            "currency": {
              "default": "EUR",
              "pattern": "^[A-Z]{3}$",
              "type": "string",
            },
            "orderId": {
              "description": "Order number, e.g. 1234",
              "pattern": "^[A-Za-z0-9-]{1,40}$",
              "type": "string",
            },
            "reason": {
              "maxLength": 500,
              "type": "string",
            },
          },
          "required": [
            "orderId",
            "amount",
          ],
          "type": "object",
        },
        "name": "issue_refund",
        "outputSchema": {
          "additionalProperties": false,
          "properties": {
            "amount": {
              "type": "number",
            },
            "currency": {
              "type": "string",
            },
            "issuedAt": {
              "type": "string",
            },
            "orderId": {
              "type": "string",
            },
            "refundId": {
              "type": "string",
            },
            "status": {
              "const": "issued",
              "type": "string",
            },
          },
          "required": [
            "refundId",
            "orderId",
            "amount",
            "currency",
            "status",
            "issuedAt",
          ],
          "type": "object",
        },
        "title": "Issue refund",
      }
    `);
    expect(typed.find((t) => t.name === "get_weather")!.annotations).toEqual({
      title: "Get weather",
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(typed.find((t) => t.name === "create_ticket")!.annotations).toEqual({
      title: "Create ticket",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it("wraps a non-object output schema under result", () => {
    expect(toMcpTool(scalarOut).output.outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "integer" } },
      required: ["result"],
    });
    expect(toMcpTool(mcpOnly).output.name).toBe("mcp_only");
  });
});

describe("A2A", () => {
  it("exports the demo tools as agent skills", async () => {
    const { output } = toA2ASkills(demo());
    const typed: AgentSkill[] = output;
    expect(typed[3]).toMatchInlineSnapshot(`
      {
        "description": "Current weather for a city (demo data: made up, but the same for the same city).

      Arguments (JSON): city: string (required), unit: celsius|fahrenheit",
        "examples": [
          "{"tool":"get_weather","arguments":{"city":"<city>"}}",
        ],
        "id": "get_weather",
        "inputModes": [
          "application/json",
        ],
        "name": "Get weather",
        "outputModes": [
          "application/json",
        ],
        "securityRequirements": [],
        "tags": [
          "demo",
          "weather",
        ],
      }
    `);
    // Each skill's example is a data part calling it, from the schema's own values where it has them.
    const sampled = await addTool("sampled", {
      type: "object",
      properties: {
        city: { type: "string", examples: ["Lisbon"] },
        days: { type: "integer", minimum: 1 },
        unit: { enum: ["celsius", "fahrenheit"] },
        hourly: { type: "boolean", default: false },
        note: { type: "string" },
      },
      required: ["city", "days", "unit", "hourly"],
    });
    expect(JSON.parse(toA2ASkill(sampled).output.examples[0]!)).toEqual({
      tool: "sampled",
      arguments: { city: "Lisbon", days: 1, unit: "celsius", hourly: false },
    });
    // A choice gives its first variant, with that object's own required fields.
    expect(JSON.parse(toA2ASkill(unions).output.examples[0]!)).toEqual({ tool: "pick_shape", arguments: { shape: { radius: 1 } } });
    // Local $refs are followed, and a schema that refers to itself stops after a few levels.
    const referring = await addTool("plant_tree", {
      type: "object",
      $defs: {
        unit: { enum: ["m", "ft"] },
        node: { type: "object", properties: { label: { type: "string" }, child: { $ref: "#/$defs/node" } }, required: ["label", "child"] },
      },
      properties: { height: { type: "number", minimum: 2 }, unit: { $ref: "#/$defs/unit" }, root: { $ref: "#/$defs/node" } },
      required: ["height", "unit", "root"],
    });
    const example = JSON.parse(toA2ASkill(referring).output.examples[0]!) as { arguments: Record<string, unknown> };
    expect(example.arguments).toMatchObject({ height: 2, unit: "m", root: { label: "<label>", child: { label: "<label>" } } });
    expect(JSON.stringify(example).length).toBeLessThan(300);
    // A schema whose many required fields each refer back to it (as an imported server's may) makes
    // an example of a bounded size, not one of fields^depth values; __proto__ is a field like any other.
    const names = ["__proto__", ...Array.from({ length: 39 }, (_, i) => `f${i}`)];
    const fanning = await addTool("fan_out", {
      type: "object",
      properties: Object.fromEntries(names.map((name) => [name, { $ref: "#" }])),
      required: names,
    });
    const fanned = toA2ASkill(fanning).output.examples[0]!;
    expect(fanned.length).toBeLessThan(20_000);
    const fannedArgs = (JSON.parse(fanned) as { arguments: Record<string, unknown> }).arguments;
    expect(Object.keys(fannedArgs)).toContain("__proto__");
    expect(toA2ASkill(unions).output.description).toBe(
      "Tricky pick_shape\n\nArguments (JSON): shape: any (required), mode: any, code: 1|2|3, note: string|null",
    );
  });
});

describe("targets", () => {
  it("refuses a tool whose targets exclude the format", async () => {
    expect(() => toOpenAIChatTool(mcpOnly)).toThrow(ToolUsageError);
    expect(() => toOpenAIResponsesTool(mcpOnly)).toThrow(ToolUsageError);
    expect(() => toAnthropicTool(mcpOnly)).toThrow(ToolUsageError);
    expect(() => toGeminiFunctionDeclaration(mcpOnly)).toThrow(ToolUsageError);
    expect(() => toLangChainTool(mcpOnly, executor)).toThrow(ToolUsageError);
    expect(() => toA2ASkill(mcpOnly)).toThrow('Tool "mcp_only" is not exported to a2a (its targets are mcp)');
    expect(() => toMcpTool(registry.get("tree_walk")!)).not.toThrow();
    const agOnly = await addTool("agui_only", { type: "object" }, { policy: { targets: ["agui"] } });
    expect(() => toMcpTool(agOnly)).toThrow(expect.objectContaining({ name: "ToolUsageError", kind: "tool_not_usable" }));
  });
});
