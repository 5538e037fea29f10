import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { MAX_DOCUMENT_DEPTH, valueDepthExceeds } from "../../json/depth";
import { ToolDefinitionError } from "../../tools/errors";
import { OpenApiDocumentError, OpenApiDocumentTooDeep, OpenApiOptionsError } from "./errors";
import type { DocumentSource } from "./load-document";
import type { PreparedOutline, PreparedTool, PrepareOptions } from "./prepare-document";
import type { WorkerReply, WorkerRequest } from "./prepare-protocol";

/** What the worker made of a document: its outline and, for an import, its checked tools. */
export interface PreparedDocument extends PreparedOutline {
  tools: PreparedTool[];
}

/**
 * Where the worker's entry lives on disk. The console runs from its project folder (`npm start`,
 * `next dev`, the tests and benches all do), and the entry is read from there rather than from
 * this module's folder, which in Next's server bundle is a build output with no such file.
 */
const ENTRY = path.join("lib", "integrations", "openapi", "prepare-worker-entry.mjs");

interface Pending {
  tools: PreparedTool[];
  onProgress?: (done: number, total: number) => void;
  resolve: (prepared: PreparedDocument) => void;
  reject: (error: Error) => void;
}

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

/**
 * Parse, validate, plan and check a document on a worker thread, so that the seconds a large
 * document costs never hold the event loop: what is left here is posting the text and receiving
 * the tools in batches of a few hundred. Throws what prepareDocument throws, as the same classes.
 */
export function prepareOffThread(
  source: DocumentSource,
  options: PrepareOptions & { onProgress?: (done: number, total: number) => void },
  withTools: boolean,
): Promise<PreparedDocument> {
  // A document handed in parsed is copied to the worker by structured clone, which recurses.
  if ("document" in source && valueDepthExceeds(source.document, MAX_DOCUMENT_DEPTH))
    return Promise.reject(new OpenApiDocumentTooDeep(`The document nests arrays and objects deeper than ${MAX_DOCUMENT_DEPTH} levels`));
  const { onProgress, ...planOptions } = options;
  return new Promise<PreparedDocument>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { tools: [], ...(onProgress && { onProgress }), resolve, reject });
    const request: WorkerRequest = { id, source, options: planOptions, withTools };
    try {
      const thread = startedWorker();
      thread.ref();
      thread.postMessage(request);
    } catch (error) {
      pending.delete(id);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

function startedWorker(): Worker {
  if (worker) return worker;
  const entry = path.resolve(ENTRY);
  if (!fs.existsSync(entry)) throw new Error(`The OpenAPI worker entry ${entry} is missing: run the console from its project folder`);
  const thread = new Worker(entry);
  thread.on("message", (reply: WorkerReply) => receive(thread, reply));
  // A worker that dies takes its requests with it; the next request starts a new one.
  const fail = (error: Error) => {
    if (worker === thread) worker = undefined;
    for (const [id, request] of pending) {
      pending.delete(id);
      request.reject(error);
    }
  };
  thread.on("error", fail);
  thread.on("exit", (code) => fail(new Error(`The OpenAPI worker stopped (exit code ${code})`)));
  // An idle worker must not keep the process alive; it is referenced while a request is pending.
  thread.unref();
  worker = thread;
  return thread;
}

function receive(thread: Worker, reply: WorkerReply): void {
  const request = pending.get(reply.id);
  if (!request) return;
  switch (reply.type) {
    case "progress":
      request.onProgress?.(reply.done, reply.total);
      return;
    case "tools":
      for (const tool of reply.tools) request.tools.push(tool);
      return;
    case "done":
      settle(thread, reply.id);
      request.resolve({ ...reply.outline, tools: request.tools });
      return;
    case "error":
      settle(thread, reply.id);
      request.reject(rebuild(reply.error));
  }
}

function settle(thread: Worker, id: number): void {
  pending.delete(id);
  if (pending.size === 0) thread.unref();
}

/** The worker's error as the class the in-thread steps threw; anything else is an internal error. */
function rebuild(error: Extract<WorkerReply, { type: "error" }>["error"]): Error {
  switch (error.name) {
    case "OpenApiDocumentError":
      return new OpenApiDocumentError(error.message, error.problems);
    case "OpenApiDocumentTooDeep":
      return new OpenApiDocumentTooDeep(error.message);
    case "OpenApiOptionsError":
      return new OpenApiOptionsError(error.message);
    case "ToolDefinitionError":
      return new ToolDefinitionError(error.message, error.path);
    default: {
      const internal = new Error(`OpenAPI preparation failed: ${error.message}`);
      if (error.stack) internal.stack = error.stack;
      return internal;
    }
  }
}
