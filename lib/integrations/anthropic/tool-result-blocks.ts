import type { CallOutcome } from "../../execution/result";
import { assertAnswered } from "../pending-call";
import { resultText } from "../result-text";

/** One executed call answering a `tool_use` block. */
export interface AnsweredToolUse {
  /** The `id` of the model's `tool_use` block. */
  toolUseId: string;
  toolName: string;
  result: CallOutcome;
}

/** A `tool_result` content block (`ToolResultBlockParam` in `@anthropic-ai/sdk`). */
export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/**
 * `tool_result` blocks for the next user message, in the order of `answers`. Failures go to the
 * model as `is_error` blocks carrying `{error:{kind,message}}`. Throws ApprovalPending when a call
 * still waits for a person: it has no result to send yet.
 */
export function toAnthropicToolResults(answers: AnsweredToolUse[]): AnthropicToolResultBlock[] {
  return answers.map(({ toolUseId, toolName, result }): AnthropicToolResultBlock => {
    assertAnswered(result, toolName);
    return { type: "tool_result", tool_use_id: toolUseId, content: resultText(result), ...(!result.ok && { is_error: true }) };
  });
}
