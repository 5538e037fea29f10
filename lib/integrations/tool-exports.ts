import { ToolUsageError } from "../tools/errors";
import type { Target, ToolSpec } from "../tools/spec";
import { toA2ASkill } from "./a2a/agent-skills";
import { toAnthropicTool } from "./anthropic/anthropic-tools";
import type { ExportResult } from "./export-result";
import { toGeminiFunctionDeclaration } from "./gemini/function-declarations";
import { toMcpTool } from "./mcp/mcp-tools";
import { toOpenAIChatTool, toOpenAIResponsesTool } from "./openai/openai-tools";

/** The definition formats a tool's page shows, in tab order. */
export const EXPORT_FORMATS = [
  { id: "openai-chat", label: "OpenAI Chat Completions", target: "openai" },
  { id: "openai-responses", label: "OpenAI Responses", target: "openai" },
  { id: "anthropic", label: "Anthropic", target: "anthropic" },
  { id: "gemini", label: "Gemini", target: "gemini" },
  { id: "mcp", label: "MCP", target: "mcp" },
  { id: "a2a", label: "A2A", target: "a2a" },
] as const satisfies ReadonlyArray<{ id: string; label: string; target: Target }>;

export type ExportFormat = (typeof EXPORT_FORMATS)[number]["id"];

/** One format's definition of a tool, or why the tool is not exported to it. */
export type ToolExport = {
  format: ExportFormat;
  label: string;
  target: Target;
} & ({ ok: true; output: unknown; warnings: string[] } | { ok: false; refused: string });

const EXPORTERS: Record<ExportFormat, (tool: ToolSpec) => ExportResult<unknown>> = {
  "openai-chat": (tool) => toOpenAIChatTool(tool),
  "openai-responses": (tool) => toOpenAIResponsesTool(tool),
  anthropic: toAnthropicTool,
  gemini: (tool) => toGeminiFunctionDeclaration(tool),
  mcp: toMcpTool,
  a2a: toA2ASkill,
};

/**
 * The tool's definition in every format, exactly as the exporters produce it. A format its targets
 * exclude comes back refused with the ToolUsageError's message; other errors are thrown.
 */
export function exportToolDefinitions(tool: ToolSpec): ToolExport[] {
  return EXPORT_FORMATS.map(({ id, label, target }): ToolExport => {
    try {
      const { output, warnings } = EXPORTERS[id](tool);
      return { format: id, label, target, ok: true, output, warnings: warnings.map((w) => w.message) };
    } catch (error) {
      if (error instanceof ToolUsageError) return { format: id, label, target, ok: false, refused: error.message };
      throw error;
    }
  });
}
