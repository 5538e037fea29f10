// The bare SDK servers the MCP and A2A benches measure the console against: each protocol's SDK
// answering the no-op in the SDK's own pattern, with nothing of the console. The same handlers serve
// on the node adapter (./mcp-handlers.ts, ./a2a-handlers.ts) and in the production build's Next
// server (app/api/bench/, ./bench-routes.ts).
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
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { NOOP } from "./noop-tool";

/** A web handler as both the node adapter and a Next route take it. */
export type BareHandler = (request: Request) => Promise<Response>;

// The same refusing validator the console gives its servers, so the baseline does not pay for Ajv either.
const NO_FORM: jsonSchemaValidator = { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "none" }) };

/** MCP: the SDK's own stateless pattern with one tool, a Server and a transport per request; any tools/call answers {}. */
export function bareMcpHandler(): BareHandler {
  return bareMcpServing(async () => {});
}

/** The low-level Server of the bare MCP servers: one tool, whose calls wait for `call` and answer {}. */
export function bareMcpServer(call: () => Promise<unknown>): Server {
  const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} }, jsonSchemaValidator: NO_FORM });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [NOOP] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    await call();
    return { content: [{ type: "text", text: "{}" }], structuredContent: {} };
  });
  return server;
}

/** bareMcpHandler's server, which waits for `call` before it answers a tools/call. */
export function bareMcpServing(call: () => Promise<unknown>): BareHandler {
  return async (request) => {
    const server = bareMcpServer(call);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return transport.handleRequest(request);
  };
}

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

/** A2A: DefaultRequestHandler, InMemoryTaskStore and the executor above; any SendMessage completes with {}. */
export function bareA2aHandler(): BareHandler {
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
