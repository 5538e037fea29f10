/**
 * The PostgreSQL twin of ./schema.ts: the same tables, column names, property keys, defaults,
 * indexes, unique and foreign keys, written with drizzle's pg-core builders. drizzle has no builder
 * shared by both dialects, so the two files are kept in step by hand and checked against each other:
 * ./parity.ts fails to compile when a row type differs, and test/db/postgres-schema.test.ts compares
 * the structure (names, keys, indexes) and the column types that the row types cannot tell apart.
 *
 * How SQLite's columns map here:
 * - milliseconds (every `*_at`, `lease_until` and `*_ms` column) are `bigint` read as a JS number:
 *   `Date.now()` is past the range of PostgreSQL's 4-byte `integer`;
 * - JSON text columns are `jsonb` (an object goes in and comes back out);
 * - SQLite's 0/1 booleans are `boolean` (raw SQL says `where confirm`, not `where confirm = 1`);
 * - autoincrement ids are identity columns that still accept an explicit id, as SQLite does;
 * - `run_events.events` is text only: node-postgres cannot put a Buffer in a text column, so the
 *   PostgreSQL store writes the batch as JSON text and leaves compression to PostgreSQL (TOAST).
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { A2AParkedCall, ApprovalStatus, McpTaskStatus } from "./schema";

/**
 * Milliseconds since the epoch, from the clock at the moment the row is written: `now()` would give
 * the start of the transaction, so rows written later in a long transaction would look older.
 */
const now = sql`((extract(epoch from clock_timestamp()) * 1000)::bigint)`;
/** A count of milliseconds (a time since the epoch, or a duration), read as a JS number. */
const ms = (name: string) => bigint(name, { mode: "number" });
const timestamps = {
  createdAt: ms("created_at").notNull().default(now),
  updatedAt: ms("updated_at").notNull().default(now),
};
const json = <T>(name: string) => jsonb(name).$type<T>();

export const sources = pgTable("sources", {
  id: text("id").primaryKey(),
  kind: text("kind").$type<"openapi" | "mcp" | "a2a" | "agui">().notNull(),
  name: text("name").notNull(),
  location: text("location").notNull(),
  authRef: json<Record<string, unknown>>("auth_ref"),
  authSecret: text("auth_secret"),
  options: json<Record<string, unknown>>("options").notNull().default({}),
  status: text("status").$type<"ok" | "error" | "refreshing" | "importing">().notNull().default("ok"),
  statusMessage: text("status_message"),
  lastRefreshAt: ms("last_refresh_at"),
  ...timestamps,
});

export const sourceDocuments = pgTable("source_documents", {
  sourceId: text("source_id")
    .primaryKey()
    .references(() => sources.id, { onDelete: "cascade" }),
  document: text("document").notNull(),
  ...timestamps,
});

export const tools = pgTable(
  "tools",
  {
    name: text("name").primaryKey(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    inputSchema: json<Record<string, unknown>>("input_schema").notNull(),
    outputSchema: json<Record<string, unknown> | boolean>("output_schema"),
    confirm: boolean("confirm").notNull().default(false),
    effects: text("effects").$type<"read" | "write" | "destructive">().notNull().default("read"),
    idempotent: boolean("idempotent").notNull().default(false),
    openWorld: boolean("open_world").notNull().default(false),
    timeoutMs: ms("timeout_ms").notNull(),
    retries: integer("retries").notNull().default(0),
    targets: json<string[]>("targets").notNull(),
    tags: json<string[]>("tags").notNull(),
    kind: text("kind").notNull(),
    sourceId: text("source_id").references(() => sources.id, { onDelete: "cascade" }),
    binding: json<Record<string, unknown>>("binding"),
    enabled: boolean("enabled").notNull().default(true),
    approval: text("approval").$type<"default" | "always" | "never" | "once_per_thread">().notNull().default("default"),
    digest: text("digest").notNull(),
    ...timestamps,
  },
  (t) => [index("tools_source_idx").on(t.sourceId), index("tools_kind_idx").on(t.kind)],
);

export const threads = pgTable(
  "threads",
  {
    id: text("id").primaryKey(),
    agent: text("agent").notNull(),
    title: text("title"),
    principal: text("principal").notNull(),
    state: json<unknown>("state"),
    messages: json<unknown[]>("messages").notNull().default([]),
    ...timestamps,
  },
  (t) => [index("threads_updated_idx").on(t.updatedAt)],
);

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    agent: text("agent").notNull(),
    principal: text("principal").notNull(),
    surface: text("surface").notNull().default("agui"),
    status: text("status").$type<"running" | "finished" | "interrupted" | "error" | "cancelled">().notNull(),
    outcome: json<Record<string, unknown>>("outcome"),
    error: text("error"),
    parentRunId: text("parent_run_id"),
    toolCallCount: integer("tool_call_count").notNull().default(0),
    usage: json<unknown[]>("usage"),
    /** The shared state the run was given (its STATE_DELTAs patch it); null when it was given none or `{}`. */
    inputState: json<unknown>("input_state"),
    startedAt: ms("started_at").notNull(),
    finishedAt: ms("finished_at"),
    ...timestamps,
  },
  (t) => [index("runs_thread_idx").on(t.threadId, t.startedAt), index("runs_started_idx").on(t.startedAt)],
);

/** A run's events in batches, as in ./schema.ts, but the batch is always JSON text here (see the top). */
export const runEvents = pgTable(
  "run_events",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    count: integer("count").notNull(),
    events: text("events").notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

export const approvals = pgTable(
  "approvals",
  {
    id: text("id").primaryKey(),
    key: text("key").notNull(),
    principal: text("principal").notNull(),
    scope: text("scope").notNull(),
    callId: text("call_id").notNull(),
    runId: text("run_id"),
    threadId: text("thread_id"),
    surface: text("surface").notNull(),
    tool: text("tool").notNull(),
    args: json<Record<string, unknown>>("args").notNull(),
    argsDigest: text("args_digest").notNull(),
    message: text("message"),
    status: text("status").$type<ApprovalStatus>().notNull().default("pending"),
    decidedBy: text("decided_by"),
    decidedAt: ms("decided_at"),
    reason: text("reason"),
    editedArgs: json<Record<string, unknown>>("edited_args"),
    expiresAt: ms("expires_at").notNull(),
    consumedAt: ms("consumed_at"),
    result: json<Record<string, unknown>>("result"),
    ranAt: ms("ran_at"),
    answeredAt: ms("answered_at"),
    answeredRunId: text("answered_run_id"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("approvals_key_idx").on(t.key),
    index("approvals_status_idx").on(t.status, t.createdAt),
    index("approvals_thread_idx").on(t.threadId),
    index("approvals_created_idx").on(t.createdAt),
    // A call repeated without its call key finds the approval asked for it (MCP clients whose
    // model cannot send _meta): by caller, scope, tool and arguments, newest first.
    index("approvals_call_idx").on(t.principal, t.scope, t.tool, t.argsDigest, t.createdAt),
  ],
);

export const approvalEvents = pgTable(
  "approval_events",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    approvalId: text("approval_id")
      .notNull()
      .references(() => approvals.id, { onDelete: "cascade" }),
    type: text("type").$type<"requested" | "decided" | "expired" | "cancelled" | "consumed" | "ran" | "answered">().notNull(),
    actor: text("actor").notNull(),
    data: json<Record<string, unknown>>("data"),
    ...timestamps,
  },
  (t) => [index("approval_events_approval_idx").on(t.approvalId, t.id)],
);

export const callResults = pgTable(
  "call_results",
  {
    principal: text("principal").notNull(),
    scope: text("scope").notNull(),
    callId: text("call_id").notNull(),
    tool: text("tool").notNull(),
    argsDigest: text("args_digest").notNull(),
    args: json<Record<string, unknown>>("args"),
    result: json<Record<string, unknown>>("result").notNull(),
    durationMs: ms("duration_ms").notNull().default(0),
    pinned: boolean("pinned").notNull().default(false),
    ...timestamps,
  },
  (t) => [
    // The call id before the scope, as in ./schema.ts (why is said there).
    primaryKey({ columns: [t.principal, t.callId, t.scope, t.tool, t.argsDigest] }),
    index("call_results_tool_idx").on(t.tool, t.createdAt),
  ],
);

export const approvalGrants = pgTable(
  "approval_grants",
  {
    id: text("id").primaryKey(),
    tool: text("tool").notNull(),
    threadId: text("thread_id").notNull(),
    toolDigest: text("tool_digest").notNull(),
    grantedBy: text("granted_by").notNull(),
    approvalId: text("approval_id"),
    revokedAt: ms("revoked_at"),
    revokedBy: text("revoked_by"),
    ...timestamps,
  },
  (t) => [index("approval_grants_lookup_idx").on(t.tool, t.threadId)],
);

export const toolEvents = pgTable(
  "tool_events",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    tool: text("tool").notNull(),
    type: text("type").$type<"settings_changed" | "grant_added" | "grant_revoked">().notNull(),
    actor: text("actor").notNull(),
    data: json<Record<string, unknown>>("data"),
    ...timestamps,
  },
  (t) => [index("tool_events_tool_idx").on(t.tool, t.id)],
);

export const apiTokens = pgTable("api_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  hash: text("hash").notNull().unique(),
  scopes: json<string[]>("scopes").notNull(),
  allowedOrigins: json<string[]>("allowed_origins"),
  expiresAt: ms("expires_at"),
  agent: text("agent"),
  lastUsedAt: ms("last_used_at"),
  revokedAt: ms("revoked_at"),
  ...timestamps,
});

export const operatorSessions = pgTable(
  "operator_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    tokenId: text("token_id").references(() => apiTokens.id, { onDelete: "cascade" }),
    principalId: text("principal_id").notNull(),
    role: text("role").$type<"viewer" | "operator" | "admin">().notNull(),
    expiresAt: ms("expires_at").notNull(),
    ...timestamps,
  },
  (t) => [index("operator_sessions_expiry_idx").on(t.expiresAt)],
);

export const mcpTasks = pgTable(
  "mcp_tasks",
  {
    id: text("id").primaryKey(),
    principal: text("principal").notNull(),
    status: text("status").$type<McpTaskStatus>().notNull(),
    statusMessage: text("status_message"),
    tool: text("tool").notNull(),
    args: json<Record<string, unknown>>("args").notNull(),
    scope: text("scope").notNull(),
    callId: text("call_id").notNull(),
    runId: text("run_id").notNull(),
    approvalId: text("approval_id"),
    result: json<Record<string, unknown>>("result"),
    ttlMs: ms("ttl_ms").notNull(),
    pollIntervalMs: ms("poll_interval_ms").notNull(),
    expiresAt: ms("expires_at").notNull(),
    leaseUntil: ms("lease_until"),
    ...timestamps,
  },
  (t) => [
    index("mcp_tasks_principal_idx").on(t.principal, t.createdAt),
    index("mcp_tasks_approval_idx").on(t.approvalId),
    index("mcp_tasks_expiry_idx").on(t.expiresAt),
  ],
);

export const a2aTasks = pgTable(
  "a2a_tasks",
  {
    id: text("id").primaryKey(),
    principal: text("principal").notNull(),
    contextId: text("context_id").notNull(),
    state: integer("state").notNull(),
    task: json<Record<string, unknown>>("task").notNull(),
    parked: json<A2AParkedCall>("parked"),
    approvalId: text("approval_id"),
    expiresAt: ms("expires_at").notNull(),
    ...timestamps,
  },
  (t) => [
    index("a2a_tasks_principal_idx").on(t.principal, t.updatedAt),
    index("a2a_tasks_approval_idx").on(t.approvalId),
    index("a2a_tasks_expiry_idx").on(t.expiresAt),
  ],
);

export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: json<unknown>("value").notNull(),
  updatedBy: text("updated_by").notNull(),
  ...timestamps,
});

export const agentStates = pgTable(
  "agent_states",
  {
    agent: text("agent").notNull(),
    threadId: text("thread_id").notNull(),
    key: text("key").notNull(),
    runId: text("run_id").notNull(),
    status: text("status").notNull(),
    value: json<unknown>("value").notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.agent, t.threadId, t.key] }), index("agent_states_thread_idx").on(t.threadId, t.updatedAt)],
);
