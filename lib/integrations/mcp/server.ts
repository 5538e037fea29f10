import { randomUUID } from "node:crypto";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { Server, type ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  UrlElicitationRequiredError,
  type CallToolRequest,
  type CallToolResult,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { requiresApproval } from "../../approvals/gate";
import type { ApprovalStore } from "../../approvals/store";
import { DomainError, answerableError, rpcErrorObject, type ErrorKind } from "../../errors";
import { newCallId } from "../../execution/call-id";
import type { Executor } from "../../execution/executor";
import { isPending } from "../../execution/result";
import { isJsonObject, jsonDigest } from "../../json/canonical";
import type { Logger } from "../../log";
import type { ToolReporter } from "../../tools/handler";
import type { RegisteredTool } from "../../tools/spec";
import { approvalLink, CALL_ID_META, pendingCallResult, RUN_ID_META, toCallToolResult } from "./server-results";
import type { McpTasks, TaskCall } from "./server-tasks";
import type { McpToolCatalog } from "./server-tools";

/** What every MCP request is served with: the console's registry, executor, approvals and tasks. */
export interface McpServerDeps {
  catalog: McpToolCatalog;
  executor: Executor;
  approvals: ApprovalStore;
  tasks: McpTasks;
  logger: Logger;
  version: string;
}

/** Who asks, and what their client can do (read from what it declared at initialize). */
export interface McpCaller {
  /** The principal's id: approvals, records and tasks are bound to it. */
  principal: string;
  /** The client declared URL-mode elicitation: a call that waits gets -32042 with the approval's page. */
  urlElicitation: boolean;
  /** Where the console's pages are (PUBLIC_URL, else the request's own Host), for approval links. */
  baseUrl: string;
  /**
   * The request reads or cancels tasks (tasks/get, tasks/result, tasks/list, tasks/cancel): the
   * SDK's task handlers are installed, over the caller's task store. The server is built per
   * request, and installing them costs more than building the rest of it, so other requests go
   * without (their tool calls create tasks through the executor, not through the SDK's store).
   */
  readsTasks: boolean;
}

/**
 * A tool's progress and log messages as this request's notifications: progress only when the
 * client sent a progress token, log messages always (the client filters them by level).
 */
function mcpReporter(progressToken: string | number | undefined, extra: Extra): ToolReporter {
  return {
    progress: async (progress, total, message) => {
      if (progressToken === undefined) return;
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) },
      });
    },
    log: (level, data) => extra.sendNotification({ method: "notifications/message", params: { level, data } }),
  };
}

export const SERVER_NAME = "agui-console";
const MAX_KEY_LENGTH = 200;

const INSTRUCTIONS =
  `Tools of this console's registry. Some calls wait for a person's approval in the console. ` +
  `Send _meta {"${RUN_ID_META}": ..., "${CALL_ID_META}": ...} with a call to name it; a call that waits ` +
  `can be repeated with the same call key once it is decided, and then runs once.`;

/**
 * What every request's server declares. Tools may log while they run (their messages ride the
 * call's SSE stream). Any call may wait for a person, so tools/call may become a task.
 */
const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: false },
  logging: {},
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

// The low-level Server builds an Ajv instance per server for form elicitation, which this server
// never asks for; one refusing validator for every request keeps that cost off each request.
const NO_FORM_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "This server asks for no form input" }),
};

/**
 * A low-level MCP Server for one request of `caller`: tools/list pages the registry's MCP tools,
 * tools/call runs them through the executor, and tasks/* answer the caller's own tasks. A server
 * per request keeps it stateless: anything that outlives a request is in SQLite.
 */
export function createMcpServer(deps: McpServerDeps, caller: McpCaller): Server {
  const options: ServerOptions = { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_FORM_ELICITATION };
  if (caller.readsTasks) options.taskStore = deps.tasks.storeFor(caller.principal);
  // With the logging capability the SDK answers logging/setLevel itself (a stateless server keeps the level for this request only).
  const server = new Server({ name: SERVER_NAME, title: "AG-UI Console", version: deps.version }, options);
  server.setRequestHandler(
    ListToolsRequestSchema,
    guarded(deps.logger, async (request) => deps.catalog.page(request.params?.cursor)),
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    guarded(deps.logger, (request, extra) => callTool(deps, caller, request, extra)),
  );
  return server;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

async function callTool(
  deps: McpServerDeps,
  caller: McpCaller,
  request: CallToolRequest,
  extra: Extra,
): Promise<CallToolResult | { task: Awaited<ReturnType<McpTasks["create"]>> }> {
  const { name, arguments: given, task } = request.params;
  const tool = deps.catalog.get(name);
  if (!tool) throw new DomainError("tool_not_found", `Unknown tool: ${name}`);
  const args = given ?? {};
  const keys = callKeys(request.params._meta);
  // The client's keys live in their own scope: they never meet the keys of AG-UI runs or of another caller.
  const scope = keys.runId === undefined ? "mcp" : `mcp:${keys.runId}`;
  const runId = keys.runId ?? randomUUID();
  const { callId, unkeyedApproval } = await chooseCallId(deps.approvals, caller.principal, keys.callId, { scope, tool, args });
  const ctx = {
    principal: caller.principal,
    scope,
    runId,
    surface: "mcp" as const,
    signal: extra.signal,
    report: mcpReporter(request.params._meta?.progressToken, extra),
  };
  // A call id made up here cannot be in the record: the executor need not look for it.
  const fresh = callId !== keys.callId && !unkeyedApproval;
  const outcome = await deps.executor.call(name, args, { callId, fresh, ctx });
  // The call repeated without a key has its answer now (it ran, or was denied): the next such
  // call is a new one and asks again.
  if (unkeyedApproval && !isPending(outcome)) await deps.approvals.markAnswered(unkeyedApproval, runId, caller.principal);

  if (task) {
    const call: TaskCall = { tool: name, args, scope, callId, runId };
    return { task: await deps.tasks.create(caller.principal, call, outcome, task.ttl) };
  }
  if (!isPending(outcome)) return toCallToolResult(outcome, tool.outputSchema);
  const link = approvalLink(caller.baseUrl, outcome.pending.approvalId);
  if (caller.urlElicitation)
    throw new UrlElicitationRequiredError(
      [
        {
          mode: "url",
          elicitationId: outcome.pending.approvalId,
          url: link,
          message:
            `${outcome.pending.message} A person decides it on this page. Then call ${name} again with the same ` +
            `arguments (with _meta {"${CALL_ID_META}": ${JSON.stringify(callId)}} if you can send it).`,
        },
      ],
      `The call waits for approval ${outcome.pending.approvalId}`,
    );
  return pendingCallResult(outcome.pending, callId, link);
}

/**
 * The call id a call runs under. A client's call key is honoured only to reach an approval: for a
 * tool that asks for one (the approval is bound to the key, and the same call repeated with it
 * resumes), or when an approval was asked under that key already. Any other call gets a fresh id,
 * so a key can never fetch a recorded result of a call that needed no person.
 *
 * A call of a tool that asks for approval made without a key (most clients: their model fills in
 * the arguments and nothing else) is the same call as the caller's last one with the same tool and
 * arguments while that one has not had its answer: it takes that call's id, so that repeating it
 * once an operator decided runs it (once) or hears the denial. `unkeyedApproval` names that approval.
 */
async function chooseCallId(
  approvals: ApprovalStore,
  principal: string,
  key: string | undefined,
  call: { scope: string; tool: RegisteredTool; args: Record<string, unknown> },
): Promise<{ callId: string; unkeyedApproval?: string }> {
  const needsPerson = requiresApproval(call.tool);
  // Most calls carry no key and need no person: they skip the digest and the lookups below.
  if (key === undefined && !needsPerson) return { callId: newCallId() };
  if (key !== undefined && needsPerson) return { callId: key };
  const asked = { scope: call.scope, tool: call.tool.name, argsDigest: jsonDigest(call.args) };
  if (key === undefined) {
    const open = await approvals.unansweredForCall(principal, asked);
    return open ? { callId: open.callId, unkeyedApproval: open.id } : { callId: newCallId() };
  }
  return { callId: (await approvals.findFor(principal, { ...asked, callId: key })) ? key : newCallId() };
}

/** The client's run and call keys from a request's `_meta`. Throws DomainError (invalid_body) for a key that is not a short string. */
function callKeys(meta: Record<string, unknown> | undefined): { runId?: string; callId?: string } {
  if (!isJsonObject(meta)) return {};
  return { runId: key(meta, RUN_ID_META), callId: key(meta, CALL_ID_META) };
}

function key(meta: Record<string, unknown>, name: string): string | undefined {
  const value = meta[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_KEY_LENGTH)
    throw new DomainError("invalid_body", `_meta["${name}"] must be a string of 1 to ${MAX_KEY_LENGTH} characters`);
  return value;
}

/**
 * A request handler whose errors reach the client as JSON-RPC errors with the code of their kind
 * (an unknown tool is -32602) and a message chosen for it; anything unexpected is logged and
 * answered -32603 without details. The SDK's own errors (McpError) pass as they are.
 */
function guarded<Req, Res>(logger: Logger, handler: (request: Req, extra: Extra) => Promise<Res>) {
  return async (request: Req, extra: Extra): Promise<Res> => {
    try {
      return await handler(request, extra);
    } catch (error) {
      if (error instanceof McpError) throw error;
      const answer = answerableError(error, (message, cause) => logger.error(`MCP request: ${message}`, { error: cause }));
      throw rpcError(answer.kind, answer.message);
    }
  };
}

/**
 * An error the SDK sends as `{code, message, data: {kind}}`. A plain Error with a code rather than
 * McpError: McpError writes "MCP error <code>: " into the message, which clients then show twice.
 */
function rpcError(kind: ErrorKind, message: string): Error {
  const { code, data } = rpcErrorObject(kind, message);
  return Object.assign(new Error(message), { code, data });
}
