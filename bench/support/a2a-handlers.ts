// The A2A bench's three servers (bench/a2a.ts), each made in a process of its own by
// ./served-handler.ts: the console's handler, a bare SDK server answering the same call, and an
// empty handler.
import { randomUUID } from "node:crypto";
import { AgentCard, TaskState, type Part } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
} from "@a2a-js/sdk/server";
import { consoleApi } from "../../lib/api";
import type { WebHandler } from "../../lib/http/node-adapter";
import { noopServices } from "./noop-services";
import type { HandlerFactory } from "./served-handler";

export const A2A_PATH = "/api/a2a";

const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  mediaType: "application/json",
  filename: "",
  metadata: undefined,
});

/** The SDK's pattern with one tool: the task, working, the result artifact, completed. */
const bareExecutor: AgentExecutor = {
  async execute(rc, bus) {
    const { taskId, contextId } = rc;
    const status = (state: TaskState) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [rc.userMessage],
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_WORKING);
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        append: false,
        lastChunk: true,
        metadata: undefined,
        artifact: { artifactId: randomUUID(), name: "result", description: "", parts: [dataPart({})], metadata: undefined, extensions: [] },
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
  },
  async cancelTask() {},
};

function bareHandler(): WebHandler {
  const card = AgentCard.fromJSON({
    name: "bare",
    description: "bare",
    version: "1",
    supportedInterfaces: [{ url: "http://127.0.0.1/api/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: [],
  });
  const transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), bareExecutor));
  return async (request) => {
    const parsed = (await request.json()) as Record<string, unknown>;
    const ctx = new ServerCallContext({ requestedVersion: request.headers.get("a2a-version") ?? undefined });
    return Response.json(await transport.handle(parsed, ctx));
  };
}

/** The console's A2A handler over its own services (the no-op registered). */
export const consoleA2a: HandlerFactory = async () => {
  const { services, close } = await noopServices();
  return { path: A2A_PATH, handler: consoleApi(services).a2a.post as WebHandler, close };
};

/** The SDK's pattern: DefaultRequestHandler, InMemoryTaskStore and the executor above. */
export const bareA2a: HandlerFactory = async () => ({ path: A2A_PATH, handler: bareHandler() });

/** node:http and the adapter alone: what any handler pays before it starts. */
export const emptyA2a: HandlerFactory = async () => ({
  path: A2A_PATH,
  handler: async () => Response.json({ jsonrpc: "2.0", id: 1, result: {} }),
});
