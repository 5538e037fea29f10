import { randomUUID } from "node:crypto";
import { Message, TaskState, type Part, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../../execution/errors";
import { jsonDigest } from "../../json/canonical";
import { MAX_DOCUMENT_DEPTH, valueDepthExceeds } from "../../json/depth";
import { AddressNotAllowed } from "../../net";
import { messageOf, type A2AConnection } from "./client-connection";
import { contentValue } from "../content-value";
import { A2AAgentUnreachable, A2AOptionsError } from "./import-errors";
import type { A2ABinding } from "./plan-a2a-tools";

/** A result whose JSON is longer than this is refused: a model cannot use it and the console would hold it. */
const MAX_RESULT_CHARS = 4 * 1024 * 1024;
const MAX_ERROR_CHARS = 2_000;
/** How often a task that is neither finished nor waiting is read again: from the first delay, growing to the last. */
const POLL_MS = { first: 100, max: 2_000 };

const FINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/**
 * Call a remote skill: send one message (a data part {tool, arguments} for a typed skill, else the
 * text of `message`) and follow its task to a final or interrupted state, until `signal` ends the
 * call (the tool's time limit), when the remote task is cancelled. Returns the result: the data of
 * a single data part, else the text, else the parts. A task that waits for input is a ToolError:
 * nothing is approved here, and the task is remembered so that the same call made again by the
 * same principal (after someone gave that input remotely, e.g. an operator approved) resumes it
 * instead of starting another; another principal's identical call starts a task of its own, and
 * never hears the first one's result. A failed, rejected or cancelled task, a JSON-RPC error and an
 * unreachable agent are ToolErrors too.
 */
export async function callRemoteSkill(
  connection: A2AConnection,
  binding: A2ABinding,
  args: Record<string, unknown>,
  call: { signal: AbortSignal; principal: string },
): Promise<unknown> {
  const { signal } = call;
  const key = `${call.principal}\u0000${binding.skillId}\u0000${jsonDigest(args)}`;
  const parts = binding.typed ? [{ data: { tool: binding.skillId, arguments: args } }] : [{ text: String(args.message ?? "") }];
  const client = await guarded(() => connection.connected(), signal);
  const waiting = connection.waiting.get(key);
  let result: Message | Task;
  try {
    result = await guarded(() => client.sendMessage(request(parts, waiting), { signal }), signal);
  } catch (error) {
    // The waiting task is gone or was finished remotely (cancelled, expired): start a new one.
    if (!waiting || signal.aborted || !isRpcError(error)) throw error;
    connection.waiting.forget(key);
    result = await guarded(() => client.sendMessage(request(parts), { signal }), signal);
  }
  if (!isTask(result)) {
    connection.waiting.forget(key);
    return valueOf(result.parts ?? []);
  }
  const task = await follow(client, result, signal);
  const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  const said = statusText(task);
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    connection.waiting.remember(key, task);
    throw new ToolError(
      `The remote agent needs more input before it goes on${said ? `: ${said}` : ""}`.slice(0, MAX_ERROR_CHARS) +
        ` Nothing was approved here. Once that input is given at the remote agent (for a console: once its operator decides), call this tool again with the same arguments to resume task ${task.id}.`,
      { remoteTask: task.id, state: "input-required", ...(statusData(task) !== undefined && { remote: statusData(task) }) },
    );
  }
  connection.waiting.forget(key);
  if (state === TaskState.TASK_STATE_COMPLETED) {
    const artifacts = (task.artifacts ?? []).flatMap((artifact) => artifact.parts ?? []);
    return valueOf(artifacts.length ? artifacts : (task.status?.message?.parts ?? []));
  }
  const what =
    state === TaskState.TASK_STATE_REJECTED
      ? "rejected the call"
      : state === TaskState.TASK_STATE_CANCELED
        ? "cancelled the task"
        : state === TaskState.TASK_STATE_AUTH_REQUIRED
          ? "needs the caller to authenticate"
          : "reports that the task failed";
  throw new ToolError(`The remote agent ${what}${said ? `: ${said}` : ""}`.slice(0, MAX_ERROR_CHARS), {
    remoteTask: task.id,
    state: TaskState[state] ?? String(state),
  });
}

/** Read the task again until it is final or interrupted; cancel it remotely when the call ends first. */
async function follow(client: Client, first: Task, signal: AbortSignal): Promise<Task> {
  let task = first;
  let delay = POLL_MS.first;
  try {
    while (!FINAL.has(task.status?.state as TaskState) && !INTERRUPTED.has(task.status?.state as TaskState)) {
      await sleep(delay, signal);
      delay = Math.min(delay * 2, POLL_MS.max);
      task = await guarded(() => client.getTask({ tenant: "", id: task.id, historyLength: 0 }, { signal }), signal);
    }
    return task;
  } catch (error) {
    if (signal.aborted)
      // Nobody waits for the answer any more; the agent should stop working on it (best effort).
      void client.cancelTask({ tenant: "", id: task.id, metadata: undefined }, { signal: AbortSignal.timeout(5_000) }).catch(() => {});
    throw error;
  }
}

function request(parts: unknown[], task?: { taskId: string; contextId: string }) {
  return {
    tenant: "",
    message: Message.fromJSON({ messageId: randomUUID(), role: "ROLE_USER", parts, ...task }),
    // The default (blocking) send returns at a final or interrupted state; `follow` reads on from there.
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false },
    metadata: undefined,
  };
}

/** Run a remote step; its failures become ToolErrors a model can read (an aborted call's error is passed on). */
async function guarded<T>(step: () => Promise<T>, signal: AbortSignal): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (error instanceof ToolError) throw error;
    if (isRpcError(error))
      throw Object.assign(new ToolError(`The remote agent refused the request: ${messageOf(error)}`.slice(0, MAX_ERROR_CHARS)), {
        rpc: true,
      });
    if (error instanceof A2AAgentUnreachable || error instanceof A2AOptionsError || error instanceof AddressNotAllowed)
      throw new ToolError(error.message.slice(0, MAX_ERROR_CHARS));
    throw new ToolError(`The remote agent cannot be reached: ${messageOf(error)}`.slice(0, MAX_ERROR_CHARS));
  }
}

/** A JSON-RPC error the agent answered (the SDK's error classes carry the envelope's code). */
function isRpcError(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  return (
    (error as { rpc?: unknown }).rpc === true ||
    typeof (error as { envelopeCode?: unknown }).envelopeCode === "number" ||
    /^JsonRpc/.test((error as Error).name ?? "")
  );
}

/** The address a part names in its metadata (`uri`, as a console serving a resource puts it), if any. */
function uriOf(part: Part): string | undefined {
  const uri: unknown = part.metadata?.uri;
  return typeof uri === "string" && uri ? uri : undefined;
}

/** A part of an answer that holds files, as an MCP content block. */
function blockOf(part: Part, index: number): ContentBlock {
  const content = part.content!;
  const mimeType = part.mediaType.trim().toLowerCase();
  const uri = uriOf(part);
  switch (content.$case) {
    case "text":
      return uri
        ? { type: "resource", resource: { uri, ...(mimeType && { mimeType }), text: content.value } }
        : { type: "text", text: content.value };
    case "data":
      return { type: "text", text: JSON.stringify(content.value ?? null) };
    case "url":
      return { type: "resource_link", uri: content.value, name: part.filename || content.value, ...(mimeType && { mimeType }) };
    case "raw": {
      const data = Buffer.from(content.value).toString("base64");
      if (!uri && /^(image|audio)\/[\w.+-]+$/.test(mimeType))
        return { type: mimeType.startsWith("image") ? "image" : "audio", data, mimeType };
      const address = uri ?? `a2a-part:${encodeURIComponent(part.filename || String(index + 1))}`;
      return { type: "resource", resource: { uri: address, mimeType: mimeType || "application/octet-stream", blob: data } };
    }
  }
}

/** The values of an answer without files: none is null, one is itself, text is joined, else the list. */
function plainValue(values: unknown[]): unknown {
  if (values.length === 0) return null;
  if (values.length === 1) return values[0];
  return values.every((v) => typeof v === "string") ? values.join("\n") : values;
}

function isTask(result: Message | Task): result is Task {
  return "status" in result && typeof (result as Task).id === "string" && !("messageId" in result);
}

/**
 * The value of an answer's parts: one data part is its value, text parts are their text, several
 * parts the list of them. An answer with files (bytes or a URL) is MCP content blocks (see
 * ContentValue): an image or a sound as itself, other bytes as a resource, a URL as a link, text and
 * data as text. Throws ToolError when too large or deep.
 */
function valueOf(parts: Part[]): unknown {
  const present = parts.filter((part) => part.content !== undefined);
  const files = present.some((part) => part.content!.$case === "raw" || part.content!.$case === "url" || uriOf(part) !== undefined);
  const value = files ? contentValue(present.map(blockOf)) : plainValue(present.map((part) => (part.content as { value: unknown }).value));
  if (valueDepthExceeds(value, MAX_DOCUMENT_DEPTH))
    throw new ToolError(`The remote agent's result nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  if (JSON.stringify(value ?? null).length > MAX_RESULT_CHARS)
    throw new ToolError(`The remote agent's result is larger than ${MAX_RESULT_CHARS} characters`);
  return value;
}

function statusText(task: Task): string {
  return (task.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .filter(Boolean)
    .join(" ")
    .trim();
}

function statusData(task: Task): unknown {
  const part = (task.status?.message?.parts ?? []).find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data" ? part.content.value : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
