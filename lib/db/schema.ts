import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Milliseconds since the epoch; every table carries created and updated times in this unit. */
const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;
const timestamps = {
  createdAt: integer("created_at").notNull().default(now),
  updatedAt: integer("updated_at").notNull().default(now),
};
const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();

export const sources = sqliteTable("sources", {
  id: text("id").primaryKey(),
  kind: text("kind").$type<"openapi" | "mcp" | "a2a" | "agui">().notNull(),
  name: text("name").notNull(),
  location: text("location").notNull(),
  /** Which credential the calls carry (kind and where it goes), never the secret itself. */
  authRef: json<Record<string, unknown>>("auth_ref"),
  /** The secret the calls send; never returned by an API and never logged. */
  authSecret: text("auth_secret"),
  options: json<Record<string, unknown>>("options").notNull().default({}),
  status: text("status").$type<"ok" | "error" | "refreshing" | "importing">().notNull().default("ok"),
  statusMessage: text("status_message"),
  lastRefreshAt: integer("last_refresh_at"),
  ...timestamps,
});

/**
 * The imported document or card of a source, so tools can be rebuilt after a restart. A table of
 * its own: SQLite rewrites a whole row on any update, and a source's status changes on every
 * import and refresh while its document (megabytes) does not.
 */
export const sourceDocuments = sqliteTable("source_documents", {
  sourceId: text("source_id")
    .primaryKey()
    .references(() => sources.id, { onDelete: "cascade" }),
  // Long documents are stored deflated, as a BLOB (./stored-text.ts).
  document: text("document").$type<string | Buffer>().notNull(),
  ...timestamps,
});

export const tools = sqliteTable(
  "tools",
  {
    name: text("name").primaryKey(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    inputSchema: json<Record<string, unknown>>("input_schema").notNull(),
    outputSchema: json<Record<string, unknown> | boolean>("output_schema"),
    confirm: integer("confirm", { mode: "boolean" }).notNull().default(false),
    effects: text("effects").$type<"read" | "write" | "destructive">().notNull().default("read"),
    idempotent: integer("idempotent", { mode: "boolean" }).notNull().default(false),
    openWorld: integer("open_world", { mode: "boolean" }).notNull().default(false),
    timeoutMs: integer("timeout_ms").notNull(),
    retries: integer("retries").notNull().default(0),
    targets: json<string[]>("targets").notNull(),
    tags: json<string[]>("tags").notNull(),
    kind: text("kind").notNull(),
    sourceId: text("source_id").references(() => sources.id, { onDelete: "cascade" }),
    /** Kind-specific data an importer needs to rebuild the handler (e.g. an HTTP operation). */
    binding: json<Record<string, unknown>>("binding"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** The operator's approval policy; "default" follows `confirm`. */
    approval: text("approval").$type<"default" | "always" | "never" | "once_per_thread">().notNull().default("default"),
    /** Digest of the definition a model sees; a change revokes remembered grants. */
    digest: text("digest").notNull(),
    ...timestamps,
  },
  (t) => [index("tools_source_idx").on(t.sourceId), index("tools_kind_idx").on(t.kind)],
);

export const threads = sqliteTable(
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

export const runs = sqliteTable(
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
    startedAt: integer("started_at").notNull(),
    finishedAt: integer("finished_at"),
    ...timestamps,
  },
  (t) => [index("runs_thread_idx").on(t.threadId, t.startedAt), index("runs_started_idx").on(t.startedAt)],
);

/**
 * Every event of a run, in order, stored in batches: one row holds events a run emitted together
 * (`seq` is the first one's position, `count` how many). `events` is a JSON array of them as text,
 * or deflated as a blob when long, where a stretch of one item's streamed deltas is a single
 * compact entry (lib/runs/record-batch.ts). One row per event cost more than streaming the event.
 */
export const runEvents = sqliteTable(
  "run_events",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    count: integer("count").notNull(),
    events: text("events").$type<string | Buffer>().notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

export type ApprovalStatus = "pending" | "approved" | "denied" | "expired" | "cancelled" | "consumed";

export const approvals = sqliteTable(
  "approvals",
  {
    id: text("id").primaryKey(),
    /** Idempotency key: digest of principal, scope, call id, tool and argument digest. */
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
    decidedAt: integer("decided_at"),
    reason: text("reason"),
    editedArgs: json<Record<string, unknown>>("edited_args"),
    expiresAt: integer("expires_at").notNull(),
    consumedAt: integer("consumed_at"),
    /** The outcome of the call this approval allowed, once it ran. */
    result: json<Record<string, unknown>>("result"),
    ranAt: integer("ran_at"),
    /** When the outcome reached the conversation that asked (an AG-UI resume), and in which run. */
    answeredAt: integer("answered_at"),
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

export const approvalEvents = sqliteTable(
  "approval_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
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

export const callResults = sqliteTable(
  "call_results",
  {
    principal: text("principal").notNull(),
    scope: text("scope").notNull(),
    callId: text("call_id").notNull(),
    tool: text("tool").notNull(),
    argsDigest: text("args_digest").notNull(),
    /** The arguments the call ran with (the edited ones when a person changed them). */
    args: json<Record<string, unknown>>("args"),
    result: json<Record<string, unknown>>("result").notNull(),
    durationMs: integer("duration_ms").notNull().default(0),
    /** Kept at the top of the tool's recent calls, to run again. */
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    // The call id before the scope: the ids the console makes begin with the time (newCallId,
    // newToolCallId), so a busy console's records land on the same pages of this index even when
    // each has a scope of its own (an A2A task's, an AG-UI thread's). Scope first, a random scope
    // put each insert on a page of its own: 59 µs a row against 16 (12 rows a transaction, timed
    // from the 36,000th row to the 96,000th).
    primaryKey({ columns: [t.principal, t.callId, t.scope, t.tool, t.argsDigest] }),
    index("call_results_tool_idx").on(t.tool, t.createdAt),
  ],
);

/**
 * "Approve for this thread": a remembered grant lets later calls of the tool in the same thread run
 * without asking, while the tool's definition keeps the digest it had when the grant was made.
 */
export const approvalGrants = sqliteTable(
  "approval_grants",
  {
    id: text("id").primaryKey(),
    tool: text("tool").notNull(),
    threadId: text("thread_id").notNull(),
    /** The tool's definition digest when granted; a different digest means the grant no longer holds. */
    toolDigest: text("tool_digest").notNull(),
    grantedBy: text("granted_by").notNull(),
    approvalId: text("approval_id"),
    revokedAt: integer("revoked_at"),
    revokedBy: text("revoked_by"),
    ...timestamps,
  },
  (t) => [index("approval_grants_lookup_idx").on(t.tool, t.threadId)],
);

/** Append-only audit of what operators changed on tools: approval policy, targets, enabled, limits. */
export const toolEvents = sqliteTable(
  "tool_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tool: text("tool").notNull(),
    type: text("type").$type<"settings_changed" | "grant_added" | "grant_revoked">().notNull(),
    actor: text("actor").notNull(),
    data: json<Record<string, unknown>>("data"),
    ...timestamps,
  },
  (t) => [index("tool_events_tool_idx").on(t.tool, t.id)],
);

export const apiTokens = sqliteTable("api_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** SHA-256 of the token; the token itself is shown once and never stored. */
  hash: text("hash").notNull().unique(),
  scopes: json<string[]>("scopes").notNull(),
  /**
   * Origins (as `scheme://host[:port]`) whose pages may use this token from a browser besides
   * CORS_ORIGINS; null: only CORS_ORIGINS.
   */
  allowedOrigins: json<string[]>("allowed_origins"),
  /** An embed token's end (ms since the epoch): refused from then on; null: until revoked. */
  expiresAt: integer("expires_at"),
  /** An embed token's one agent: refused for any other; null: every agent. */
  agent: text("agent"),
  lastUsedAt: integer("last_used_at"),
  revokedAt: integer("revoked_at"),
  ...timestamps,
});

/**
 * Operators signed in to the pages from off loopback. The cookie holds a random id; only its
 * SHA-256 is stored, so a copy of the database signs nobody in. A session stands for the token it
 * was opened with (its scopes, revoked with it) or for the configured admin token (token_id null).
 */
export const operatorSessions = sqliteTable(
  "operator_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    tokenId: text("token_id").references(() => apiTokens.id, { onDelete: "cascade" }),
    principalId: text("principal_id").notNull(),
    role: text("role").$type<"viewer" | "operator" | "admin">().notNull(),
    expiresAt: integer("expires_at").notNull(),
    ...timestamps,
  },
  (t) => [index("operator_sessions_expiry_idx").on(t.expiresAt)],
);

export type McpTaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/**
 * MCP tasks (tools/call with `task`): the call a task stands for, bound to the principal that asked,
 * and, once it ended, the CallToolResult to answer tasks/result with. Kept here rather than in
 * memory so any process, and the console after a restart, answers tasks/get, result, list, cancel.
 */
export const mcpTasks = sqliteTable(
  "mcp_tasks",
  {
    id: text("id").primaryKey(),
    principal: text("principal").notNull(),
    status: text("status").$type<McpTaskStatus>().notNull(),
    statusMessage: text("status_message"),
    tool: text("tool").notNull(),
    args: json<Record<string, unknown>>("args").notNull(),
    /** The call's key in the executor (with principal, scope, tool and arguments): running it again never runs it twice. */
    scope: text("scope").notNull(),
    callId: text("call_id").notNull(),
    runId: text("run_id").notNull(),
    /** The approval the task waits for, while it is input_required. */
    approvalId: text("approval_id"),
    result: json<Record<string, unknown>>("result"),
    ttlMs: integer("ttl_ms").notNull(),
    pollIntervalMs: integer("poll_interval_ms").notNull(),
    expiresAt: integer("expires_at").notNull(),
    /** While working: until when the process that claimed the task owns it (after that another may take over). */
    leaseUntil: integer("lease_until"),
    ...timestamps,
  },
  (t) => [
    index("mcp_tasks_principal_idx").on(t.principal, t.createdAt),
    index("mcp_tasks_approval_idx").on(t.approvalId),
    index("mcp_tasks_expiry_idx").on(t.expiresAt),
  ],
);

/** A call an A2A task waits on: the executor's key for it, and the approval that decides it. */
export interface A2AParkedCall {
  /** A tool call from a data part, or the calls a chat turn's agent asked for. */
  kind: "tool" | "chat";
  calls: Array<{ tool: string; args: Record<string, unknown>; scope: string; callId: string; runId: string; approvalId: string }>;
  /** A chat turn's conversation when it paused (AG-UI messages), for the agent to go on from once the calls ran. */
  messages?: Array<Record<string, unknown>>;
}

export const a2aTasks = sqliteTable(
  "a2a_tasks",
  {
    id: text("id").primaryKey(),
    /** The caller that created the task: every read is bound to it. */
    principal: text("principal").notNull(),
    contextId: text("context_id").notNull(),
    /** The SDK's TaskState number (COMPLETED 3, INPUT_REQUIRED 6...), for listing and caps. */
    state: integer("state").notNull(),
    /** The task in the protocol's JSON form (history, artifacts, status). */
    task: json<Record<string, unknown>>("task").notNull(),
    /** While input-required: the call(s) parked until a person decides. */
    parked: json<A2AParkedCall>("parked"),
    /** The first approval the parked call waits for, to find the task when it is decided. */
    approvalId: text("approval_id"),
    expiresAt: integer("expires_at").notNull(),
    ...timestamps,
  },
  (t) => [
    index("a2a_tasks_principal_idx").on(t.principal, t.updatedAt),
    index("a2a_tasks_approval_idx").on(t.approvalId),
    index("a2a_tasks_expiry_idx").on(t.expiresAt),
  ],
);

/**
 * Console settings an admin changes in the Settings page (agent model, instructions, tool
 * selection, provider keys), one JSON value per key. Provider keys are kept here server-side and
 * never leave the server: the settings API answers whether a key is set, never the key.
 */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: json<unknown>("value").notNull(),
  /** Who changed it last (principal id). */
  updatedBy: text("updated_by").notNull(),
  ...timestamps,
});

/**
 * What a framework agent keeps between a paused run and its resume: an OpenAI Agents SDK run
 * state, a LangGraph checkpoint. Keyed by agent, thread and a key the adapter chooses; `status`
 * lets a resume take a paused state once ("paused" → "resumed"), so a replayed resume cannot run
 * a tool twice.
 */
export const agentStates = sqliteTable(
  "agent_states",
  {
    agent: text("agent").notNull(),
    threadId: text("thread_id").notNull(),
    key: text("key").notNull(),
    /** The run that wrote it. */
    runId: text("run_id").notNull(),
    status: text("status").notNull(),
    value: json<unknown>("value").notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.agent, t.threadId, t.key] }), index("agent_states_thread_idx").on(t.threadId, t.updatedAt)],
);
