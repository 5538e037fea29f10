import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject } from "../../json/canonical";
import type { PendingCall, ToolResult } from "../../execution/result";
import type { JsonSchema } from "../../tools/spec";
import { resultText } from "../result-text";
import { contentBlocksOf } from "../content-value";
import { wrapsResult } from "./mcp-tools";

/** `_meta` keys the console reads on a tools/call: the client's run and call keys (scoped by its principal). */
export const RUN_ID_META = "agui-console/run_id";
export const CALL_ID_META = "agui-console/call_id";
/** `_meta` keys the console writes on a result: the kind of a failure, and the approval a call waits for. */
export const ERROR_KIND_META = "agui-console/error_kind";
export const APPROVAL_ID_META = "agui-console/approval_id";
export const APPROVAL_URL_META = "agui-console/approval_url";

/**
 * A tool's outcome as an MCP result: a value becomes `structuredContent` (under `result` when the
 * output schema is not an object) with a text copy for clients that read only text; a value made of
 * MCP content blocks (ContentValue) from a tool without an output schema is those blocks; a failure
 * is an `isError` result whose text is `{error: {kind, message}}` and whose `_meta` names the kind.
 */
export function toCallToolResult(result: ToolResult, outputSchema: JsonSchema | undefined): CallToolResult {
  if (result.ok && !outputSchema) {
    const blocks = contentBlocksOf(result.value);
    if (blocks) return { content: blocks };
  }
  const content = [{ type: "text" as const, text: resultText(result) }];
  if (!result.ok) return { content, isError: true, _meta: { [ERROR_KIND_META]: result.error.kind } };
  const { value } = result;
  if (outputSchema && wrapsResult(outputSchema)) return { content, structuredContent: { result: value } };
  if (isJsonObject(value)) return { content, structuredContent: value };
  return { content };
}

/**
 * The answer for a client that can neither wait on a task nor open a link: an `isError` result saying
 * the call waits for a person, with the approval's id and page, and the call key to repeat the call
 * with once it is decided (the repeat runs it, once). A repeat with the same arguments and no key
 * finds the call too (lib/integrations/mcp/server.ts, chooseCallId).
 */
export function pendingCallResult(pending: PendingCall["pending"], callId: string, link: string): CallToolResult {
  const text =
    `This call waits for a person's approval (approval ${pending.approvalId}, decided at ${link}, ` +
    `until ${new Date(pending.expiresAt).toISOString()}). It has not run. Once it is decided, call the tool again with the ` +
    `same arguments (a client that sends _meta may add {"${CALL_ID_META}": ${JSON.stringify(callId)}}): an approved call ` +
    `then runs, once, and a denied one says so.`;
  return {
    content: [{ type: "text", text }],
    isError: true,
    _meta: {
      [ERROR_KIND_META]: "approval_pending",
      [APPROVAL_ID_META]: pending.approvalId,
      [APPROVAL_URL_META]: link,
      [CALL_ID_META]: callId,
    },
  };
}

/** The page where a person decides `approvalId`, under the console's base URL. */
export function approvalLink(baseUrl: string, approvalId: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/approvals?approval=${encodeURIComponent(approvalId)}`;
}
