import { randomUUID } from "node:crypto";
import { EventType, type AGUIEvent, type Message } from "@ag-ui/core";
import { TaskState, type Artifact, type Part, type Task } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { AgentCatalog } from "../../agents/catalog";
import { Conversation, toolResultMessage } from "../../agents/conversation";
import { principalFor } from "../../auth/principal";
import type { ApprovalStore } from "../../approvals/store";
import type { A2AParkedCall } from "../../db/a2a-tasks";
import { newCallId } from "../../execution/call-id";
import type { Executor } from "../../execution/executor";
import { isPending, type CallOutcome, type ToolResult } from "../../execution/result";
import { isJsonObject, jsonDigest } from "../../json/canonical";
import type { Logger } from "../../log";
import { contentBlocksOf } from "../content-value";
import { approvalLink } from "../mcp/server-results";
import { agentMessage, dataPart, textPart } from "./agent-message";
import { ownerOf, type A2ATasks } from "./server-tasks";

/** Where the executor finds the console's base URL (for approval links) in the call's context state. */
export const BASE_URL_STATE = "agui-console/base-url";

export interface A2AExecutorDeps {
  executor: Executor;
  approvals: ApprovalStore;
  agents: AgentCatalog;
  tasks: A2ATasks;
  logger: Logger;
  /** A data part {approval_id, approved} on a waiting task decides its approval (off: only an operator decides). */
  clientApproval: boolean;
}

/** What a user message asks for, read from its parts. */
export type A2ARequest =
  | { kind: "tool"; tool: string; args: Record<string, unknown> }
  | { kind: "answer"; approvalId: string; approved: boolean; reason?: string }
  | { kind: "chat"; text: string }
  | { kind: "invalid"; message: string };

/**
 * What a message's parts ask for: the first data part {tool, arguments} or {approval_id, approved},
 * else the text of its text parts. Anything else is invalid, with a message saying what to send.
 */
export function readRequest(parts: readonly Part[]): A2ARequest {
  for (const part of parts) {
    if (part.content?.$case !== "data") continue;
    const data: unknown = part.content.value;
    if (!isJsonObject(data))
      return { kind: "invalid", message: "A data part must be an object: {tool, arguments} or {approval_id, approved}" };
    if ("approval_id" in data) {
      if (typeof data.approval_id !== "string" || typeof data.approved !== "boolean")
        return { kind: "invalid", message: "An answer is {approval_id: string, approved: boolean, reason?: string}" };
      return {
        kind: "answer",
        approvalId: data.approval_id,
        approved: data.approved,
        ...(typeof data.reason === "string" && { reason: data.reason.slice(0, 2000) }),
      };
    }
    const args = data.arguments ?? {};
    if (typeof data.tool !== "string" || !data.tool || !isJsonObject(args))
      return { kind: "invalid", message: "A call is a data part {tool: string, arguments: object}" };
    return { kind: "tool", tool: data.tool, args };
  }
  const text = parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .join("\n")
    .trim();
  if (text) return { kind: "chat", text };
  return { kind: "invalid", message: "Send a data part {tool, arguments} to call a tool, or text to chat with the console's agent" };
}

/**
 * The A2A executor over the console's executor. A {tool, arguments} call runs the tool; text is a
 * turn for the default agent, whose tool calls go through the same executor. A call that waits for
 * a person parks in SQLite and leaves the task input-required, with a message naming the approval
 * and its page; the next message on the task runs the parked call again under its own key, so the
 * approval store decides (an approved call runs once; denied is rejected). Cancelling a running
 * task stops its call and publishes canceled here, as the SDK waits for.
 */
export class ConsoleAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, { abort: AbortController; contextId: string }>();

  constructor(private readonly deps: A2AExecutorDeps) {}

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = rc;
    const principal = ownerOf(rc.context);
    const baseUrl = String(rc.context.state.get(BASE_URL_STATE) ?? "");
    const task: Task = rc.task ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [rc.userMessage],
      metadata: undefined,
    };
    if (!rc.task) this.deps.tasks.creating(taskId, principal);
    // The SDK wants a task (or message) first, on a resumed turn too.
    bus.publish(AgentEvent.task(task));
    const abort = new AbortController();
    this.running.set(taskId, { abort, contextId });
    const turn = new Turn(bus, taskId, contextId, abort.signal);
    try {
      const request = readRequest(rc.userMessage.parts);
      if (rc.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) await this.resume(turn, principal, baseUrl, request);
      else if (request.kind === "tool") await this.callTool(turn, principal, baseUrl, request.tool, request.args);
      else if (request.kind === "chat") await this.chat(turn, principal, baseUrl, request.text);
      else if (request.kind === "answer")
        turn.finish(TaskState.TASK_STATE_REJECTED, "This task waits for no approval; there is nothing to answer");
      else turn.finish(TaskState.TASK_STATE_REJECTED, request.message);
    } finally {
      this.running.delete(taskId);
      this.deps.tasks.created(taskId);
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const running = this.running.get(taskId);
    running?.abort.abort(new Error("cancelled by the A2A client"));
    new Turn(bus, taskId, running?.contextId ?? "", undefined).status(TaskState.TASK_STATE_CANCELED, "The client cancelled the task.");
  }

  private async callTool(turn: Turn, principal: string, baseUrl: string, tool: string, args: Record<string, unknown>): Promise<void> {
    const found = this.deps.executor.registry.get(tool);
    if (!found || !found.enabled || !found.policy.targets.includes("a2a"))
      return turn.finish(TaskState.TASK_STATE_REJECTED, `Unknown tool: ${tool}`, {
        error: { kind: "tool_not_found", message: `Unknown tool: ${tool}` },
      });
    turn.status(TaskState.TASK_STATE_WORKING);
    const call = { tool, args, scope: `a2a:${turn.taskId}`, callId: newCallId(), runId: turn.taskId };
    // A call id made up here cannot be in the record yet: the executor need not look for it.
    const outcome = await this.run(principal, call, turn.signal, { fresh: true });
    if (turn.signal?.aborted) return;
    if (isPending(outcome)) return this.park(turn, baseUrl, { kind: "tool", calls: [{ ...call, approvalId: outcome.pending.approvalId }] });
    this.report(turn, [{ tool, result: outcome }]);
  }

  private async resume(turn: Turn, principal: string, baseUrl: string, request: A2ARequest): Promise<void> {
    const parked = await this.deps.tasks.parked(principal, turn.taskId);
    if (!parked) return turn.finish(TaskState.TASK_STATE_FAILED, "The call this task waited on is gone");
    if (request.kind === "answer") {
      const refusal = await this.answer(principal, parked, request);
      if (refusal) return this.park(turn, baseUrl, parked, refusal);
    }
    turn.status(TaskState.TASK_STATE_WORKING);
    const results: Array<{ tool: string; callId: string; result: ToolResult }> = [];
    for (const call of parked.calls) {
      const outcome = await this.run(principal, call, turn.signal);
      if (turn.signal?.aborted) return;
      if (isPending(outcome)) return this.park(turn, baseUrl, parked);
      results.push({ tool: call.tool, callId: call.callId, result: outcome });
    }
    if (parked.kind !== "chat" || !parked.messages) return this.report(turn, results);
    // A denied or withdrawn call ends the task as it would a tool call; any other result (a tool's
    // failure included) is the agent's to read, as on AG-UI, and it goes on from there.
    const stopped = results.find((r) => !r.result.ok && (r.result.error.kind === "denied" || r.result.error.kind === "cancelled"));
    if (stopped) return this.report(turn, [stopped]);
    const conversation = new Conversation(parked.messages as unknown as Message[]);
    for (const { callId, result } of results) {
      if (!conversation.hasAnswer(callId)) conversation.addToolMessage(toolResultMessage(callId, result));
    }
    for (const call of parked.calls) await this.deps.approvals.markAnswered(call.approvalId, turn.taskId, principal);
    await this.converse(turn, principal, baseUrl, conversation.messages);
  }

  /**
   * A client's answer to the approval its task waits on (client approval on): one use, bound to the
   * task's parked call (its run, task, tool and argument digest). Returns why it was refused, if it was.
   */
  private async answer(
    principal: string,
    parked: A2AParkedCall,
    request: Extract<A2ARequest, { kind: "answer" }>,
  ): Promise<string | undefined> {
    if (!this.deps.clientApproval) return "This console lets only its operators decide approvals; wait for one, then send any message";
    const call = parked.calls.find((c) => c.approvalId === request.approvalId);
    const approval = call && (await this.deps.approvals.get(call.approvalId));
    if (
      !call ||
      !approval ||
      approval.principal !== principal ||
      approval.scope !== call.scope ||
      approval.runId !== call.runId ||
      approval.tool !== call.tool ||
      approval.argsDigest !== jsonDigest(call.args)
    )
      return `Approval ${request.approvalId} is not the one this task waits on`;
    if (approval.status !== "pending") return undefined;
    try {
      await this.deps.approvals.decide(approval.id, {
        approved: request.approved,
        ...(request.reason && { reason: request.reason }),
        decidedBy: `a2a-client:${principal}`,
      });
    } catch (error) {
      this.deps.logger.info("an A2A client's answer was not taken", { approvalId: approval.id, error });
    }
    return undefined;
  }

  private run(
    principal: string,
    call: Omit<A2AParkedCall["calls"][number], "approvalId">,
    signal?: AbortSignal,
    options: { fresh?: boolean } = {},
  ): Promise<CallOutcome> {
    return this.deps.executor.call(call.tool, call.args, {
      callId: call.callId,
      fresh: options.fresh,
      ctx: { principal, scope: call.scope, runId: call.runId, surface: "a2a", ...(signal && { signal }) },
    });
  }

  /** Park the call and leave the task input-required, with a message naming each approval and its page. */
  private async park(turn: Turn, baseUrl: string, parked: A2AParkedCall, note?: string): Promise<void> {
    this.deps.tasks.park(turn.taskId, parked);
    const waiting: Array<{ approval_id: string; approval_url: string; tool: string; arguments: unknown; expires_at?: string }> = [];
    for (const call of parked.calls) {
      const approval = await this.deps.approvals.get(call.approvalId);
      waiting.push({
        approval_id: call.approvalId,
        approval_url: approvalLink(baseUrl, call.approvalId),
        tool: call.tool,
        arguments: call.args,
        ...(approval && { expires_at: new Date(approval.expiresAt).toISOString() }),
      });
    }
    const text =
      (note ? `${note}. ` : "") +
      waiting
        .map((w) => `The call of ${w.tool} waits for a person's approval (approval ${w.approval_id}, decided at ${w.approval_url}).`)
        .join(" ") +
      " Send any message on this task once it is decided" +
      (this.deps.clientApproval ? ", or a data part {approval_id, approved} to decide it." : ".");
    turn.status(TaskState.TASK_STATE_INPUT_REQUIRED, text, { approvals: waiting });
  }

  /**
   * The results as one artifact, and the state they add up to: completed, rejected (denied),
   * canceled or failed. A value is a data part, or the parts its MCP content blocks make (an
   * imported tool's image is a file part).
   */
  private report(turn: Turn, results: Array<{ tool: string; result: ToolResult }>): void {
    const failed = results.find((r) => !r.result.ok);
    if (!failed) {
      const parts = results.flatMap((r) => partsOf(r.result.ok ? r.result.value : null));
      turn.artifact({ artifactId: randomUUID(), name: "result", description: "", parts, metadata: undefined, extensions: [] });
      return turn.status(TaskState.TASK_STATE_COMPLETED);
    }
    const error = !failed.result.ok ? failed.result.error : undefined;
    const state =
      error?.kind === "denied"
        ? TaskState.TASK_STATE_REJECTED
        : error?.kind === "cancelled"
          ? TaskState.TASK_STATE_CANCELED
          : TaskState.TASK_STATE_FAILED;
    turn.finish(state, error?.message ?? "The call failed", { error });
  }

  /**
   * A chat turn with the default agent. Its text becomes the task's artifact; calls it made that wait
   * for a person park the task as a tool call would, with the conversation so far, and a resumed
   * task runs those calls and lets the agent go on from their results.
   */
  private async chat(turn: Turn, principal: string, baseUrl: string, text: string): Promise<void> {
    turn.status(TaskState.TASK_STATE_WORKING);
    await this.converse(turn, principal, baseUrl, [{ id: randomUUID(), role: "user", content: text }]);
  }

  /** Run the default agent over `messages` (its thread is the task's context) and report what it said and left waiting. */
  private async converse(turn: Turn, principal: string, baseUrl: string, messages: readonly Message[]): Promise<void> {
    const agent = this.deps.agents.default;
    const controller = new AbortController();
    turn.signal?.addEventListener("abort", () => controller.abort(), { once: true });
    let reply = "";
    const waiting: string[] = [];
    let conversation: Message[] | undefined;
    let error: string | undefined;
    const events = agent.run(
      {
        threadId: `a2a-${turn.contextId}`,
        runId: turn.taskId,
        messages: [...messages],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      },
      {
        principal: principalFor(principal, ["a2a"]),
        signal: controller.signal,
        executor: this.deps.executor,
        logger: this.deps.logger,
        surface: "a2a",
      },
    );
    for await (const event of events as AsyncIterable<AGUIEvent>) {
      if (event.type === EventType.TEXT_MESSAGE_CONTENT) reply += event.delta;
      else if (event.type === EventType.MESSAGES_SNAPSHOT) conversation = event.messages;
      else if (event.type === EventType.RUN_ERROR) error = event.message;
      else if (event.type === EventType.RUN_FINISHED) {
        const outcome = (event as { outcome?: { type?: string; interrupts?: Array<{ id: string }> } }).outcome;
        if (outcome?.type === "interrupt") waiting.push(...(outcome.interrupts ?? []).map((i) => i.id));
      }
    }
    if (turn.signal?.aborted) return;
    if (error !== undefined) return turn.finish(TaskState.TASK_STATE_FAILED, error);
    if (reply)
      turn.artifact({
        artifactId: randomUUID(),
        name: "reply",
        description: "",
        parts: [textPart(reply)],
        metadata: undefined,
        extensions: [],
      });
    const calls: A2AParkedCall["calls"] = [];
    for (const id of waiting) {
      const approval = await this.deps.approvals.get(id);
      if (approval)
        calls.push({
          tool: approval.tool,
          args: approval.args,
          scope: approval.scope,
          callId: approval.callId,
          runId: approval.runId ?? turn.taskId,
          approvalId: id,
        });
    }
    if (calls.length)
      return this.park(turn, baseUrl, {
        kind: "chat",
        calls,
        ...(conversation && { messages: conversation as unknown as Array<Record<string, unknown>> }),
      });
    turn.status(TaskState.TASK_STATE_COMPLETED);
  }
}

/** The events of one turn of one task. */
class Turn {
  constructor(
    private readonly bus: ExecutionEventBus,
    readonly taskId: string,
    readonly contextId: string,
    readonly signal: AbortSignal | undefined,
  ) {}

  status(state: TaskState, text?: string, data?: unknown): void {
    const parts = [...(text ? [textPart(text)] : []), ...(data !== undefined ? [dataPart(data)] : [])];
    const message = parts.length ? agentMessage(this.taskId, this.contextId, parts) : undefined;
    this.bus.publish(
      AgentEvent.statusUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        status: { state, message, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  }

  /** End the task in `state`, saying why. */
  finish(state: TaskState, text: string, data?: unknown): void {
    this.status(state, text, data);
  }

  artifact(artifact: Artifact): void {
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact,
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  }
}

/** A tool's value as parts: one data part, or one part per block of a value made of MCP content blocks. */
function partsOf(value: unknown): Part[] {
  const blocks = contentBlocksOf(value);
  return blocks ? blocks.map(blockPart) : [dataPart(value)];
}

/** An MCP content block as an A2A part: text as text, media and binary resources as bytes, a link as a URL. */
function blockPart(block: ContentBlock): Part {
  const part = (content: NonNullable<Part["content"]>, mediaType: string, filename = "", uri?: string): Part => ({
    content,
    mediaType,
    filename,
    metadata: uri === undefined ? undefined : { uri },
  });
  switch (block.type) {
    case "text":
      return textPart(block.text);
    case "image":
    case "audio":
      return part({ $case: "raw", value: Buffer.from(block.data, "base64") }, block.mimeType);
    case "resource": {
      const { resource } = block;
      const mediaType = resource.mimeType ?? "";
      return "blob" in resource
        ? part({ $case: "raw", value: Buffer.from(resource.blob, "base64") }, mediaType, "", resource.uri)
        : part({ $case: "text", value: resource.text }, mediaType || "text/plain", "", resource.uri);
    }
    case "resource_link":
      return part({ $case: "url", value: block.uri }, block.mimeType ?? "", block.name);
  }
}
