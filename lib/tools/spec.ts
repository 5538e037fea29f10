import { z } from "zod";

/** Tool names every surface accepts: OpenAI, Anthropic, Gemini, MCP and A2A all take this set. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** The surfaces and formats a tool can be served or exported to. */
export const TARGETS = ["agui", "mcp", "a2a", "openai", "anthropic", "gemini", "langchain"] as const;
export type Target = (typeof TARGETS)[number];

export const EFFECTS = ["read", "write", "destructive"] as const;
export type Effects = (typeof EFFECTS)[number];

/** What an operator chose for a tool's approvals; "default" follows the tool's own `confirm`. */
export const APPROVAL_POLICIES = ["default", "always", "never", "once_per_thread"] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

export type JsonSchema = Record<string, unknown>;

export interface ToolPolicy {
  /** The call waits for a person's approval before it runs. */
  confirm: boolean;
  effects: Effects;
  /** Running the same call twice has the effect of running it once. */
  idempotent: boolean;
  /** The tool reaches systems outside the console (the web, a third-party API). */
  openWorld: boolean;
  timeoutMs: number;
  /** Extra attempts after a retryable failure. */
  retries: number;
  targets: Target[];
  tags: string[];
}

/** A tool as a model and an operator see it; its handler lives in memory, this lives in SQLite. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** JSON Schema (2020-12) of the arguments; its root is an object. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  policy: ToolPolicy;
  /** Where the tool comes from: "builtin", "openapi", "mcp", "a2a", "langchain". */
  kind: string;
  sourceId?: string | null;
  /** Data the kind's binder needs to rebuild the handler after a restart. */
  binding?: Record<string, unknown> | null;
}

/** A tool as stored: its spec plus what operators control. */
export interface RegisteredTool extends ToolSpec {
  sourceId: string | null;
  enabled: boolean;
  approval: ApprovalPolicy;
  /** Digest of what the model sees and what the tool does; changes revoke remembered grants. */
  digest: string;
  createdAt: number;
  updatedAt: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** A call's time limit, in ms: up to 15 minutes. */
export const TimeoutMs = z
  .number()
  .int()
  .min(1)
  .max(15 * 60_000);

/** Extra attempts after a retryable failure: up to 10. */
export const Retries = z.number().int().min(0).max(10);

const PolicyInput = z
  .object({
    confirm: z.boolean().optional(),
    effects: z.enum(EFFECTS).optional(),
    idempotent: z.boolean().optional(),
    openWorld: z.boolean().optional(),
    timeoutMs: TimeoutMs.optional(),
    retries: Retries.optional(),
    targets: z.array(z.enum(TARGETS)).optional(),
    tags: z.array(z.string().trim().min(1).max(64)).max(32).optional(),
  })
  .strict();
export type ToolPolicyInput = z.input<typeof PolicyInput>;

/** The shape a caller passes to define a tool; policy fields may be left out. */
export const ToolSpecInput = z
  .object({
    name: z.string().regex(TOOL_NAME_PATTERN, "must match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$"),
    title: z.string().trim().max(200).optional(),
    description: z.string().max(8192),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    policy: PolicyInput.optional(),
    kind: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/)
      .optional(),
    sourceId: z.string().nullable().optional(),
    binding: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .strict();
export type ToolSpecInput = z.input<typeof ToolSpecInput>;

/** Policy with every field filled: reads are idempotent, writes and deletions are not. */
export function resolvePolicy(input: ToolPolicyInput = {}): ToolPolicy {
  const effects = input.effects ?? "read";
  return {
    confirm: input.confirm ?? false,
    effects,
    idempotent: input.idempotent ?? effects === "read",
    openWorld: input.openWorld ?? false,
    timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retries: input.retries ?? 0,
    targets: [...new Set(input.targets ?? TARGETS)],
    tags: [...new Set(input.tags ?? [])],
  };
}
