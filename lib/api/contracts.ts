// The types and schemas the console's components and its API handlers share: the shape of every
// answer a component reads and every body it sends. Browser-safe: the domain is imported for its
// types only; the schemas are zod.
import { z } from "zod";
import type { Approval, ApprovalEvent } from "../approvals/store";
import type { PastCall } from "../db/call-results";
import type { CallOutcome } from "../execution/result";
import type { OpenApiPreview } from "../integrations/openapi/import-openapi";
import type { McpTestResult, McpToolPreview } from "../integrations/mcp/import-mcp";
import type { ToolExport } from "../integrations/tool-exports";
import type { SourceSummary } from "../db/sources";
import {
  APPROVAL_POLICIES,
  Retries,
  TARGETS,
  TimeoutMs,
  type ApprovalPolicy,
  type Effects,
  type RegisteredTool,
  type Target,
} from "../tools/spec";

export { DecisionPayload } from "../approvals/decision-payload";
export type { ApprovalStatus } from "../db/schema";
export type { ErrorBody } from "../http/respond";
export type { CallOutcome, PendingCall, ToolErrorInfo, ToolResult } from "../execution/result";
export type { ApprovalPolicy, Effects, Target } from "../tools/spec";
export type { OpenApiPreview, PastCall, SourceSummary, ToolExport };
export type { McpTestResult, McpToolPreview };
export { SESSION_PATH, SIGN_IN_PATH, signInPath } from "../auth/sign-in-path";
export * from "./settings-contract";
export * from "./tokens-contract";

// ---- approvals ---------------------------------------------------------------------------

/** An approval as the API and the inbox show it: everything but its internal keys. */
export type ApprovalView = Omit<Approval, "key" | "argsDigest"> & { toolTitle?: string; approvalPolicy?: ApprovalPolicy };

/** GET /api/approvals */
export interface ApprovalPage {
  items: ApprovalView[];
  nextCursor?: string;
  pending: number;
}

/** GET /api/approvals/[id] */
export interface ApprovalDetail {
  approval: ApprovalView;
  events: ApprovalEvent[];
}

/** One frame of GET /api/approvals/events: a greeting with the pending count, then every change. */
export type ApprovalEventMessage =
  { type: "hello"; pending: number } | { type: ApprovalEvent["type"]; approval: ApprovalView; pending: number };

/** POST /api/approvals/decisions: one decision for several approvals. */
export const BulkDecision = z
  .object({
    ids: z.array(z.string().min(1).max(200)).min(1).max(200),
    approved: z.boolean(),
    reason: z.string().trim().max(2000).optional(),
  })
  .strict();
export type BulkDecision = z.output<typeof BulkDecision>;

/** The answer of POST /api/approvals/decisions: one entry per distinct id. */
export interface BulkDecisionAnswer {
  results: Array<
    { id: string; ok: true; status: Approval["status"] } | { id: string; ok: false; error: { code: string; message: string } }
  >;
}

// ---- tools -------------------------------------------------------------------------------

/** A tool as the tool list shows it: no schemas, so a page of a thousand stays small. */
export interface ToolSummary {
  name: string;
  title: string;
  description: string;
  kind: string;
  sourceId: string | null;
  effects: Effects;
  /** Calls wait for a person, as the operator's policy and the tool's own `confirm` decide. */
  needsApproval: boolean;
  approval: ApprovalPolicy;
  targets: Target[];
  tags: string[];
  enabled: boolean;
}

/** GET /api/tools */
export interface ToolPage {
  items: ToolSummary[];
  nextCursor: string | null;
  total: number;
}

/** A tool as its page shows it: the definition, what operators set, and whether calls ask first. */
export type ToolDetail = Omit<RegisteredTool, "binding"> & { needsApproval: boolean };

/** What PATCH /api/tools/[name] may change; at least one field. */
export const ToolSettingsPatch = z
  .object({
    approval: z.enum(APPROVAL_POLICIES).optional(),
    targets: z
      .array(z.enum(TARGETS))
      .max(TARGETS.length * 2)
      .optional(),
    enabled: z.boolean().optional(),
    timeoutMs: TimeoutMs.optional(),
    retries: Retries.optional(),
  })
  .strict()
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), {
    message: "Change at least one of approval, targets, enabled, timeoutMs, retries",
  });
export type ToolSettingsPatch = z.output<typeof ToolSettingsPatch>;

/** Call ids a client may choose: repeat one (with the same arguments) to ask again about a waiting call. */
export const CallId = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, "letters, digits, '_', '.', ':' and '-' only");

/** POST /api/tools/[name]/calls: try a tool from the console. */
export const TryCall = z
  .object({
    args: z.record(z.string(), z.unknown()).default({}),
    callId: CallId.optional(),
  })
  .strict();
export type TryCall = z.input<typeof TryCall>;

/** The answer of POST /api/tools/[name]/calls. */
export interface TryCallAnswer {
  callId: string;
  result: CallOutcome;
}

// ---- sources -----------------------------------------------------------------------------

/** The answer of an import or a refresh: the source, the tools it brought, what to know. */
export interface SourceImportAnswer {
  source: SourceSummary;
  tools: ToolSummary[];
  warnings: string[];
}

/** Who a page's user is (GET /api/session, and what pages render with). */
export interface SessionView {
  id: string;
  role: "viewer" | "operator" | "admin";
  scopes: string[];
}
