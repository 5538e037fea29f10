import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RetryableError, ToolError } from "../../execution/errors";
import { MAX_DOCUMENT_DEPTH, valueDepthExceeds } from "../../json/depth";
import type { ToolHandler } from "../../tools/handler";
import { ConnectionLost, type McpConnection } from "./connection";
import { McpServerUnreachable } from "./import-errors";
import { contentValue } from "../content-value";

/** A result whose JSON is longer than this is refused: a model cannot use it and the console would hold it. */
const MAX_RESULT_CHARS = 4 * 1024 * 1024;
const MAX_ERROR_CHARS = 2_000;

export interface RemoteToolOptions {
  /** The tool's name on its server. */
  remoteName: string;
  /** The server said the tool is idempotent: a call cut by a lost connection may be tried again. */
  idempotent: boolean;
}

/**
 * The handler of an imported MCP tool: the call goes to the server over the source's managed
 * connection (looked up at call time, so a rebuilt connection is used at once). The value is the
 * result's `structuredContent` when there is one, else its text, else its content blocks. A result
 * with `isError`, a JSON-RPC error and an unreachable server are tool errors the model can read; a
 * connection lost during the call of an idempotent tool is retried by the executor.
 */
export function remoteToolHandler(connection: () => Promise<McpConnection>, options: RemoteToolOptions): ToolHandler {
  return async (args, call) => {
    let result: CallToolResult;
    try {
      result = await (await connection()).callTool(options.remoteName, args, call.signal);
    } catch (error) {
      if (call.signal.aborted) throw error;
      if (error instanceof McpServerUnreachable) throw new ToolError(error.message);
      if (error instanceof ConnectionLost) {
        if (options.idempotent) throw new RetryableError(error.message);
        throw new ToolError(`${error.message}; it may or may not have run`);
      }
      if (error instanceof McpError) throw new ToolError(`The MCP server refused the call: ${error.message}`.slice(0, MAX_ERROR_CHARS));
      throw error;
    }
    return resultValue(result);
  };
}

/** The value a tool result stands for (see remoteToolHandler). Throws ToolError for isError or an oversized result. */
export function resultValue(result: CallToolResult): unknown {
  if (result.isError) {
    const text = textOf(result) || "The MCP tool reported an error without a message";
    throw new ToolError(text.slice(0, MAX_ERROR_CHARS));
  }
  const value =
    result.structuredContent !== undefined
      ? result.structuredContent
      : result.content.length > 0 && result.content.every((block) => block.type === "text")
        ? textOf(result)
        : contentValue(result.content);
  // Checked before anything recursive (the size check, the executor's output check) walks it.
  if (valueDepthExceeds(value, MAX_DOCUMENT_DEPTH))
    throw new ToolError(`The MCP tool's result nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  if (JSON.stringify(value).length > MAX_RESULT_CHARS)
    throw new ToolError(`The MCP tool's result is larger than ${MAX_RESULT_CHARS} characters`);
  return value;
}

function textOf(result: CallToolResult): string {
  return result.content
    .filter((block): block is Extract<CallToolResult["content"][number], { type: "text" }> => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}
