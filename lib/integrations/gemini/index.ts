export {
  toGeminiFunctionDeclaration,
  toGeminiFunctionDeclarations,
  type GeminiFunctionDeclaration,
  type GeminiLegacyFunctionDeclaration,
  type GeminiExportOptions,
} from "./function-declarations";
export { toGeminiSchema, type GeminiSchema } from "./legacy-schema";
export { runFunctionCalls, stableCallId, type GeminiFunctionCall, type GeminiFunctionResponsePart } from "./run-function-calls";
