import type { DocumentSource } from "./load-document";
import type { PreparedOutline, PreparedTool, PrepareOptions } from "./prepare-document";

/** One document for the preparation worker. */
export interface WorkerRequest {
  id: number;
  source: DocumentSource;
  options: PrepareOptions;
  /** Check and send the tool definitions too (an import); a preview needs only the outline. */
  withTools: boolean;
}

/** What the preparation worker answers, in order: progress and tools, then done or error. */
export type WorkerReply =
  | { id: number; type: "progress"; done: number; total: number }
  | { id: number; type: "tools"; tools: PreparedTool[] }
  | { id: number; type: "done"; outline: PreparedOutline }
  | { id: number; type: "error"; error: { name: string; message: string; problems?: string[]; path?: string; stack?: string } };
