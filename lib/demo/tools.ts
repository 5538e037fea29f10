import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { ToolError } from "../execution/errors";
import { defineTool, type BuiltinTool } from "../tools/define-tool";
import { ArithmeticError, evaluate } from "./arithmetic";

// Every input schema is a strict object: its JSON Schema says `additionalProperties: false`, so a
// call with a property the tool does not take is refused as invalid arguments instead of being
// accepted and silently ignored (a model that misnames a parameter learns so).

const CONDITIONS = ["sunny", "partly cloudy", "cloudy", "light rain", "rain", "thunderstorms", "fog", "snow", "windy"] as const;

/** Made-up weather, the same for the same city every time: a demo needs no network. */
export const getWeather = defineTool({
  name: "get_weather",
  title: "Get weather",
  description: "Current weather for a city (demo data: made up, but the same for the same city).",
  input: z.strictObject({
    city: z.string().trim().min(1).max(100).describe("City name, e.g. Paris"),
    unit: z.enum(["celsius", "fahrenheit"]).default("celsius").describe("Temperature unit"),
  }),
  output: z.object({
    city: z.string(),
    temperature: z.number(),
    unit: z.enum(["celsius", "fahrenheit"]),
    conditions: z.enum(CONDITIONS),
    humidity: z.number().int().min(0).max(100),
    windKph: z.number().int().min(0),
  }),
  policy: { effects: "read", idempotent: true, timeoutMs: 5_000, tags: ["demo", "weather"] },
  handler: ({ city, unit = "celsius" }) => {
    const seed = createHash("sha256").update(city.toLowerCase()).digest();
    const celsius = (seed[0]! % 40) - 5;
    return {
      city,
      temperature: unit === "celsius" ? celsius : Math.round((celsius * 9) / 5 + 32),
      unit,
      conditions: CONDITIONS[seed[1]! % CONDITIONS.length]!,
      humidity: 30 + (seed[2]! % 66),
      windKph: seed[3]! % 45,
    };
  },
});

export const calculate = defineTool({
  name: "calculate",
  title: "Calculate",
  description: "Evaluate an arithmetic expression: + - * / % ^, parentheses, pi, e, sqrt, abs, round, min, max, ln, log10, sin, cos, tan.",
  input: z.strictObject({ expression: z.string().trim().min(1).max(500).describe("e.g. (2 + 3) * 4 ^ 2") }),
  output: z.object({ expression: z.string(), result: z.number() }),
  policy: { effects: "read", idempotent: true, timeoutMs: 2_000, tags: ["demo", "math"] },
  handler: ({ expression }) => {
    try {
      return { expression, result: evaluate(expression) };
    } catch (error) {
      if (error instanceof ArithmeticError)
        throw new ToolError(`Cannot evaluate "${expression}": ${error.message} at position ${error.position + 1}`);
      throw error;
    }
  },
});

export const currentTime = defineTool({
  name: "current_time",
  title: "Current time",
  description: "The current date and time, in a given IANA time zone (UTC by default).",
  input: z.strictObject({ timezone: z.string().trim().min(1).max(64).default("UTC").describe("IANA time zone, e.g. Europe/Paris") }),
  output: z.object({ iso: z.string(), timezone: z.string(), local: z.string(), unixMs: z.number().int() }),
  policy: { effects: "read", idempotent: false, timeoutMs: 2_000, tags: ["demo", "time"] },
  handler: ({ timezone = "UTC" }) => {
    const now = new Date();
    let local: string;
    try {
      local = new Intl.DateTimeFormat("en-GB", { timeZone: timezone, dateStyle: "full", timeStyle: "long" }).format(now);
    } catch {
      throw new ToolError(`Unknown time zone "${timezone}"; use an IANA name such as Europe/Paris`);
    }
    return { iso: now.toISOString(), timezone, local, unixMs: now.getTime() };
  },
});

export const createTicket = defineTool({
  name: "create_ticket",
  title: "Create ticket",
  description: "Open a support ticket. Each run opens a new ticket, so it asks for approval first.",
  input: z.strictObject({
    title: z.string().trim().min(3).max(200).describe("One-line summary"),
    description: z.string().max(5000).default("").describe("Details"),
    priority: z.enum(["low", "normal", "high", "urgent"]).default("normal"),
  }),
  output: z.object({ ticketId: z.string(), title: z.string(), priority: z.string(), status: z.literal("open"), createdAt: z.string() }),
  policy: { effects: "write", confirm: true, idempotent: false, timeoutMs: 5_000, tags: ["demo", "support"] },
  handler: ({ title, priority = "normal" }) => ({
    ticketId: `TCK-${randomBytes(4).toString("hex").toUpperCase()}`,
    title,
    priority,
    status: "open" as const,
    createdAt: new Date().toISOString(),
  }),
});

export const issueRefund = defineTool({
  name: "issue_refund",
  title: "Issue refund",
  description: "Refund an order. Money leaves the account: every call waits for a person's approval.",
  input: z.strictObject({
    orderId: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]{1,40}$/, "letters, digits and dashes")
      .describe("Order number, e.g. 1234"),
    amount: z.number().positive().max(100_000).describe("Amount to refund"),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, "a three-letter ISO code")
      .default("EUR"),
    reason: z.string().max(500).optional(),
  }),
  output: z.object({
    refundId: z.string(),
    orderId: z.string(),
    amount: z.number(),
    currency: z.string(),
    status: z.literal("issued"),
    issuedAt: z.string(),
  }),
  policy: { effects: "destructive", confirm: true, idempotent: false, timeoutMs: 5_000, tags: ["demo", "billing"] },
  handler: ({ orderId, amount, currency = "EUR" }) => {
    if (/^0+$/.test(orderId)) throw new ToolError(`Order ${orderId} does not exist`);
    return {
      refundId: `RF-${randomBytes(4).toString("hex").toUpperCase()}`,
      orderId,
      amount,
      currency,
      status: "issued" as const,
      issuedAt: new Date().toISOString(),
    };
  },
});

/** The tools every console ships with and seeds on start. */
export const demoTools: BuiltinTool[] = [getWeather, calculate, currentTime, createTicket, issueRefund];
