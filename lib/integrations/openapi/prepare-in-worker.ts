import { Worker } from "node:worker_threads";
import pLimit from "p-limit";
import { ToolDefinitionError } from "../../tools/errors";
import { freshTurn } from "../../streams/turn-budget";
import { workerBundle } from "../../workers/worker-bundle";
import { OpenApiDocumentError, OpenApiDocumentTooDeep, OpenApiOptionsError } from "./errors";
import type { DocumentSource } from "./load-document";
import type { PreparedDocument, PreparedTool, PrepareOptions } from "./prepare-document";
import type { WorkerReply, WorkerRequest } from "./prepare-protocol";

/** How long one document may take on its worker. */
export const PREPARE_TIMEOUT_MS = 120_000;

/**
 * The heap a preparation worker may use. A 10 MB document (the size bound) parsed, validated and
 * planned stays well under it; what goes past it is refused as too large, with nothing changed.
 */
export const PREPARE_HEAP_MB = 1024;

/**
 * The worker's young generation. Left at V8's default, the worker's heap put a 2,000-operation
 * import's peak resident memory at 294-309 MB (260-265 MB in-thread; bench openapi's budget is
 * 300); at 24 MB it is 271-287 MB, where 8 MB cost 1.5 s more of the import (npx tsx bench/index.ts openapi).
 */
const PREPARE_YOUNG_MB = 24;

export interface PrepareInWorkerOptions {
  onProgress?: (done: number, total: number) => void;
  timeoutMs?: number;
}

/**
 * A worker left from a finished preparation, for the next one: starting one and compiling the
 * validator's meta-schema costs about a second. It does not keep the process alive.
 */
let idle: { worker: Worker; take: () => Worker } | undefined;

/**
 * Parse, validate, plan and (with `withTools`) check the tools of a document on a worker thread,
 * so that the seconds a large document costs never hold the event loop: this thread only receives
 * the results, a few hundred tools per message. Each preparation has a worker to itself (the idle
 * one, or a new one), and at most PREPARE_CONCURRENCY run at once. Rejects with what prepareDocument throws, as the same classes; with
 * OpenApiDocumentError when the worker runs out of memory or time (it is stopped then); with an
 * internal Error when it cannot start or dies otherwise.
 */
export async function prepareInWorker(
  source: DocumentSource,
  options: PrepareOptions,
  withTools: boolean,
  { onProgress, timeoutMs = PREPARE_TIMEOUT_MS }: PrepareInWorkerOptions = {},
): Promise<PreparedDocument> {
  return preparing(async () => {
    let worker = idle?.take();
    if (!worker) {
      const file = await workerBundle("openapi-prepare");
      worker = new Worker(file, {
        resourceLimits: { maxOldGenerationSizeMb: PREPARE_HEAP_MB, maxYoungGenerationSizeMb: PREPARE_YOUNG_MB },
      });
    }
    // Copying a document of megabytes to the worker is a block of its own, apart from the parse of
    // the request that carried it.
    await freshTurn();
    return run(worker, { source, options, withTools }, onProgress, timeoutMs);
  });
}

/** Preparations running at once: each worker may grow to PREPARE_HEAP_MB, so further ones wait their turn. */
const PREPARE_CONCURRENCY = 2;
const preparing = pLimit(PREPARE_CONCURRENCY);

function run(
  worker: Worker,
  request: WorkerRequest,
  onProgress: PrepareInWorkerOptions["onProgress"],
  timeoutMs: number,
): Promise<PreparedDocument> {
  return new Promise<PreparedDocument>((resolve, reject) => {
    const tools: PreparedTool[] = [];
    let settled = false;
    const onMessage = (reply: WorkerReply) => {
      switch (reply.type) {
        case "progress":
          onProgress?.(reply.done, reply.total);
          return;
        case "tools":
          for (const tool of reply.tools) tools.push(tool);
          return;
        case "done":
          settle(() => resolve({ ...reply.outline, tools }), true);
          return;
        case "error":
          settle(() => reject(rebuild(reply.error)), true);
      }
    };
    const onError = (error: Error & { code?: string }) =>
      settle(
        () =>
          reject(
            error.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? new OpenApiDocumentError(`The document needs more than the ${PREPARE_HEAP_MB} MB an import may use to read and plan`)
              : new Error(`The OpenAPI preparation worker failed: ${error.message}`, { cause: error }),
          ),
        false,
      );
    const onExit = (code: number) =>
      settle(() => reject(new Error(`The OpenAPI preparation worker stopped before it answered (exit code ${code})`)), false);
    /** Settle once; a worker that answered goes back to idle (when none is), any other is stopped. */
    const settle = (outcome: () => void, reusable: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      if (reusable && !idle) keepIdle(worker);
      else void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () =>
        settle(
          () => reject(new OpenApiDocumentError(`The document took longer than ${Math.round(timeoutMs / 1000)} s to read and plan`)),
          false,
        ),
      timeoutMs,
    );
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    worker.ref();
    worker.postMessage(request);
  });
}

/** Keep `worker` for the next preparation, without keeping the process alive for it. */
function keepIdle(worker: Worker): void {
  const take = () => {
    if (idle?.worker === worker) idle = undefined;
    worker.off("error", take).off("exit", take);
    return worker;
  };
  worker.on("error", take).on("exit", take);
  worker.unref();
  idle = { worker, take };
}

/** The worker's error as the class the in-thread steps throw; anything else is an internal error. */
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
