// The OpenAPI preparation worker thread, bundled into .workers/openapi-prepare.mjs (see
// lib/workers/worker-bundle.ts) and started by prepare-in-worker.ts. It prepares one document at
// a time: for each request it answers with "progress" and "tools" messages, then one "done" or
// "error". It stays up between documents, so the validator compiled for one serves the next.
import { parentPort } from "node:worker_threads";
import { prepareDocument } from "./prepare-document";
import type { WorkerReply, WorkerRequest } from "./prepare-protocol";
import { lowerThreadPriority } from "../../workers/thread-priority";

const port = parentPort;
if (!port) throw new Error("prepare-worker runs on a worker thread");

// Preparing is background work: when this thread and the one serving requests want the same
// core, requests go first.
lowerThreadPriority();

port.on("message", (request: WorkerRequest) => {
  const send = (reply: WorkerReply) => port.postMessage(reply);
  prepareDocument(request.source, request.options, {
    onProgress: (done, total) => send({ type: "progress", done, total }),
    ...(request.withTools && { onTools: (tools) => send({ type: "tools", tools }) }),
  }).then(
    (outline) => send({ type: "done", outline }),
    (error: unknown) => send({ type: "error", error: describeError(error) }),
  );
});

function describeError(error: unknown): Extract<WorkerReply, { type: "error" }>["error"] {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const { problems, path } = error as { problems?: unknown; path?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(Array.isArray(problems) && { problems: problems.map(String) }),
    ...(typeof path === "string" && { path }),
    ...(error.stack && { stack: error.stack }),
  };
}
