import { DynamicStructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { RunContext } from "../../execution/context";
import type { Executor } from "../../execution/executor";
import type { ToolSpec } from "../../tools/spec";
import { assertTarget } from "../assert-target";
import type { ExportResult } from "../export-result";
import { assertAnswered } from "../pending-call";
import { ToolException } from "./tool-exception";

export interface LangChainExportOptions {
  /** Context for every call; the run id otherwise comes from `configurable.run_id` or `thread_id`. */
  ctx?: Partial<RunContext>;
}

/**
 * A registry tool as a LangChain StructuredTool that runs through the executor (arguments checked,
 * approvals asked, results recorded). It answers `[text, value]` (`content_and_artifact`).
 * Model-visible failures throw ToolException; a call waiting for a person throws ApprovalPending.
 * Throws ToolUsageError when the tool is not exported to langchain.
 */
export function toLangChainTool(
  tool: ToolSpec,
  executor: Executor,
  options: LangChainExportOptions = {},
): ExportResult<DynamicStructuredTool<JSONSchema>> {
  assertTarget(tool, "langchain");
  const structured = new DynamicStructuredTool<JSONSchema>({
    name: tool.name,
    description: tool.description,
    schema: structuredClone(tool.inputSchema) as JSONSchema,
    responseFormat: "content_and_artifact",
    metadata: { confirm: tool.policy.confirm, effects: tool.policy.effects, idempotent: tool.policy.idempotent },
    func: async (args, _runManager, runnableConfig) => {
      const config = runnableConfig as ToolRunnableConfig | undefined;
      const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
      const runId =
        typeof configurable.run_id === "string"
          ? configurable.run_id
          : typeof configurable.thread_id === "string"
            ? configurable.thread_id
            : undefined;
      const ctx: Partial<RunContext> = {
        surface: "langchain",
        ...(runId && { runId }),
        ...(config?.signal && { signal: config.signal }),
        ...options.ctx,
      };
      const callId = config?.toolCall?.id ?? undefined;
      const result = await executor.call(tool.name, args, { callId, ctx });
      assertAnswered(result, tool.name);
      if (!result.ok) throw new ToolException(result.error.message, result.error.kind);
      const text = typeof result.value === "string" ? result.value : JSON.stringify(result.value);
      return [text, result.value];
    },
  });
  return { output: structured, warnings: [] };
}

/** Tools as LangChain StructuredTools, in the order given. Throws ToolUsageError for a tool not exported to langchain. */
export function toLangChainTools(
  tools: ToolSpec[],
  executor: Executor,
  options: LangChainExportOptions = {},
): ExportResult<Array<DynamicStructuredTool<JSONSchema>>> {
  const results = tools.map((tool) => toLangChainTool(tool, executor, options));
  return { output: results.map((r) => r.output), warnings: results.flatMap((r) => r.warnings) };
}
