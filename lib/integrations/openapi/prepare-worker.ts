// The body of the OpenAPI preparation worker thread (started by prepare-off-thread.ts through
// prepare-worker-entry.mjs): each request is one document to parse, validate, plan and check.
// It answers with "progress" and "tools" messages, then one "done" or "error" message.
import { parentPort } from "node:worker_threads";
import { prepareDocument } from "./prepare-document";
import type { WorkerReply, WorkerRequest } from "./prepare-protocol";

const port = parentPort;
if (!port) throw new Error("prepare-worker runs on a worker thread");

port.on("message", (request: WorkerRequest) => {
  const send = (reply: WorkerReply) => port.postMessage(reply);
  const { id } = request;
  prepareDocument(request.source, request.options, {
    onProgress: (done, total) => send({ id, type: "progress", done, total }),
    ...(request.withTools && { onTools: (tools) => send({ id, type: "tools", tools }) }),
  }).then(
    (outline) => send({ id, type: "done", outline }),
    (error: unknown) => send({ id, type: "error", error: describeError(error) }),
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
