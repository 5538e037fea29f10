import { assertTarget } from "../assert-target";
import type { ExportResult } from "../export-result";
import type { JsonSchema, ToolSpec } from "../../tools/spec";
import { toGeminiSchema, type GeminiSchema } from "./legacy-schema";

/** A function declaration with raw JSON Schema (`FunctionDeclaration` in `@google/genai`). */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: JsonSchema;
  responseJsonSchema?: JsonSchema;
}

/** A function declaration in the legacy OpenAPI-subset form, for older API versions and typed consumers. */
export interface GeminiLegacyFunctionDeclaration {
  name: string;
  description: string;
  parameters: GeminiSchema;
  response?: GeminiSchema;
}

export interface GeminiExportOptions {
  /** Emit `parameters` in Gemini's Schema subset instead of `parametersJsonSchema` (default false). */
  legacy?: boolean;
}

/** One tool as a Gemini function declaration. Throws ToolUsageError when the tool is not exported to gemini. */
export function toGeminiFunctionDeclaration(
  tool: ToolSpec,
  options: GeminiExportOptions & { legacy: true },
): ExportResult<GeminiLegacyFunctionDeclaration>;
export function toGeminiFunctionDeclaration(
  tool: ToolSpec,
  options?: GeminiExportOptions & { legacy?: false },
): ExportResult<GeminiFunctionDeclaration>;
export function toGeminiFunctionDeclaration(
  tool: ToolSpec,
  options: GeminiExportOptions = {},
): ExportResult<GeminiFunctionDeclaration | GeminiLegacyFunctionDeclaration> {
  assertTarget(tool, "gemini");
  if (!options.legacy) {
    return {
      output: {
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: structuredClone(tool.inputSchema),
        ...(tool.outputSchema && { responseJsonSchema: structuredClone(tool.outputSchema) }),
      },
      warnings: [],
    };
  }
  const notes: string[] = [];
  const parameters = toGeminiSchema(tool.inputSchema, notes);
  const responseNotes: string[] = [];
  const response = tool.outputSchema ? toGeminiSchema(tool.outputSchema, responseNotes) : undefined;
  const warnings = [...notes.map((n) => `parameters ${n}`), ...responseNotes.map((n) => `response ${n}`)].map((message) => ({
    tool: tool.name,
    message: `legacy schema: ${message}`,
  }));
  return { output: { name: tool.name, description: tool.description, parameters, ...(response && { response }) }, warnings };
}

/** Tools as Gemini function declarations, in the order given. Throws ToolUsageError for a tool not exported to gemini. */
export function toGeminiFunctionDeclarations(
  tools: ToolSpec[],
  options: GeminiExportOptions & { legacy: true },
): ExportResult<GeminiLegacyFunctionDeclaration[]>;
export function toGeminiFunctionDeclarations(
  tools: ToolSpec[],
  options?: GeminiExportOptions & { legacy?: false },
): ExportResult<GeminiFunctionDeclaration[]>;
export function toGeminiFunctionDeclarations(
  tools: ToolSpec[],
  options: GeminiExportOptions = {},
): ExportResult<Array<GeminiFunctionDeclaration | GeminiLegacyFunctionDeclaration>> {
  const results = tools.map((tool) =>
    options.legacy ? toGeminiFunctionDeclaration(tool, { legacy: true }) : toGeminiFunctionDeclaration(tool),
  );
  return { output: results.map((r) => r.output), warnings: results.flatMap((r) => r.warnings) };
}
