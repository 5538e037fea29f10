import type { DocumentSource } from "./load-document";
import type { PreparedOutline, PreparedTool, PrepareOptions } from "./prepare-document";

/** One document for an OpenAPI preparation worker (which prepares one at a time). */
export interface WorkerRequest {
  source: DocumentSource;
  options: PrepareOptions;
  /** Check and send the tool definitions too (an import); a preview needs only the outline. */
  withTools: boolean;
}

/** What the worker answers, in order: progress and tools, then done or error. */
export type WorkerReply =
  | { type: "progress"; done: number; total: number }
  | { type: "tools"; tools: PreparedTool[] }
  | { type: "done"; outline: PreparedOutline }
  | { type: "error"; error: { name: string; message: string; problems?: string[]; path?: string; stack?: string } };
