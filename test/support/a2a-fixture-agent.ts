import http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { AgentCard, Message, TaskState, type Part } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  defaultServerCallContextBuilder,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import {
  DefaultRequestHandler as LegacyRequestHandler,
  InMemoryTaskStore as LegacyTaskStore,
  JsonRpcTransportHandler as LegacyJsonRpc,
} from "a2a-sdk-v03/server";
import type { AgentExecutor as LegacyExecutor, ExecutionEventBus as LegacyBus, RequestContext as LegacyContext } from "a2a-sdk-v03/server";
import type { AgentCard as LegacyCard } from "a2a-sdk-v03";
import { RED_DOT_PNG } from "./media";

/**
 * A small A2A agent built with the SDK, on a real socket on 127.0.0.1. Its skills take text:
 * `echo` answers "echo: <text>"; text starting with "wait" leaves the task input-required, and the
 * next message on it completes it with "resumed: <text>"; "fail" fails the task; "slow" takes
 * `slowMs`; "picture" answers with files: text, a PNG (PICTURE_PNG), a link and a PDF's bytes. Every request's path and Authorization header are recorded.
 */
/** The 1×1 PNG the "picture" answer holds, as base64. */
export const PICTURE_PNG = RED_DOT_PNG;

const part = (content: NonNullable<Part["content"]>, mediaType: string, filename = ""): Part => ({
  content,
  mediaType,
  filename,
  metadata: undefined,
});

/** The parts of an answer: the echo, or the "picture" answer's files. */
function answerParts(text: string, resumed: boolean): Part[] {
  if (!text.startsWith("picture")) return [part({ $case: "text", value: `${resumed ? "resumed" : "echo"}: ${text}` }, "text/plain")];
  return [
    part({ $case: "text", value: "Here is a dot" }, "text/plain"),
    part({ $case: "raw", value: Buffer.from(PICTURE_PNG, "base64") }, "image/png", "dot.png"),
    part({ $case: "url", value: "https://example.com/dot.png" }, "image/png", "dot.png"),
    part({ $case: "raw", value: Buffer.from("%PDF-1.4") }, "application/pdf", "dot.pdf"),
  ];
}

export interface FixtureAgent {
  base: string;
  /** Requests seen: path and the Authorization header (or null). */
  seen: Array<{ path: string; authorization: string | null }>;
  /** Replace the card's skills (a refresh then sees them). */
  setSkills(skills: Array<{ id: string; name: string; description: string }>): void;
  /** The card is served padded past this many bytes (to test the cap); 0 for a normal card. */
  padCard(bytes: number): void;
  /** While on, every JSON-RPC request is answered HTTP 500 with a body that echoes its Authorization header. */
  breakRpc(on: boolean): void;
  close(): Promise<void>;
}

interface FixtureOptions {
  /** The protocol the agent speaks: "1.0" (SDK 1.3) or "0.3" (SDK 0.3.14). */
  version?: "1.0" | "0.3";
  /** The JSON-RPC endpoint the card names, when not the agent's own (another origin, say). */
  interfaceUrl?: string;
  slowMs?: number;
}

const SKILLS = [
  { id: "echo", name: "Echo", description: "Echoes the message back" },
  { id: "ask.human", name: "Ask a human", description: "Waits for a person before it answers" },
];

export async function startFixtureAgent(options: FixtureOptions = {}): Promise<FixtureAgent> {
  const seen: FixtureAgent["seen"] = [];
  let skills = SKILLS;
  let pad = 0;
  let broken = false;
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const endpoint = options.interfaceUrl ?? `${base}/rpc`;
  const legacy = options.version === "0.3";

  const cardJson = (): Record<string, unknown> => {
    const common = {
      name: "Fixture agent",
      description: "A test agent",
      version: "2.1.0",
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: skills.map((s) => ({ ...s, tags: ["test"], examples: [], inputModes: ["text/plain"], outputModes: ["text/plain"] })),
    };
    const json = legacy
      ? { ...common, url: endpoint, preferredTransport: "JSONRPC", protocolVersion: "0.3.0" }
      : (AgentCard.toJSON(
          AgentCard.fromJSON({
            ...common,
            supportedInterfaces: [{ url: endpoint, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
          }),
        ) as Record<string, unknown>);
    return pad ? { ...json, padding: "x".repeat(pad) } : json;
  };

  const respondV1 = async (request: http.IncomingMessage, body: string): Promise<unknown> => {
    const handler = new JsonRpcTransportHandler(v1Handler());
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: {},
      requestedVersion: String(request.headers["a2a-version"] ?? "1.0"),
    } as never);
    return handler.handle(body, context);
  };
  // One task store for the agent's life, so a resumed task is found.
  let rh: DefaultRequestHandler | undefined;
  const v1Handler = () =>
    (rh ??= new DefaultRequestHandler(
      AgentCard.fromJSON(cardJson()),
      new InMemoryTaskStore(),
      v1Executor(options),
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      {
        keepBusAliveStates: [],
      },
    ));
  let legacyRh: LegacyJsonRpc | undefined;
  const legacyHandler = () =>
    (legacyRh ??= new LegacyJsonRpc(
      new LegacyRequestHandler(cardJson() as unknown as LegacyCard, new LegacyTaskStore(), legacyExecutor(options)),
    ));

  server.on("request", (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    const answer = async () => {
      const path = new URL(request.url ?? "/", base).pathname;
      seen.push({ path, authorization: request.headers.authorization ?? null });
      response.setHeader("content-type", "application/json");
      if (request.method === "GET" && path === "/.well-known/agent-card.json") return response.end(JSON.stringify(cardJson()));
      if (request.method === "POST" && path === "/rpc" && broken) {
        response.statusCode = 500;
        return response.end(`cannot serve ${request.headers.authorization ?? "anonymous"} today`);
      }
      if (request.method === "POST" && path === "/rpc") {
        const body = Buffer.concat(chunks).toString("utf8");
        const answer = legacy ? await legacyHandler().handle(body) : await respondV1(request, body);
        return response.end(JSON.stringify(answer));
      }
      response.statusCode = 404;
      response.end(JSON.stringify({ error: "not found" }));
    };
    request.on("end", () => void answer());
  });

  return {
    base,
    seen,
    setSkills: (next) => {
      skills = next;
      rh = undefined;
    },
    padCard: (bytes) => {
      pad = bytes;
    },
    breakRpc: (on) => {
      broken = on;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function textOf(parts: Part[]): string {
  return parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : p.content?.$case === "data" ? JSON.stringify(p.content.value) : ""))
    .join(" ");
}

function v1Executor(options: FixtureOptions): AgentExecutor {
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = ctx;
      const text = textOf(ctx.userMessage.parts);
      const status = (state: TaskState, say?: string) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: {
              state,
              message: say
                ? Message.fromJSON({ messageId: randomUUID(), role: "ROLE_AGENT", parts: [{ text: say }], taskId, contextId })
                : undefined,
              timestamp: new Date().toISOString(),
            },
            metadata: undefined,
          }),
        );
      const resumed = ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
      bus.publish(
        AgentEvent.task(
          ctx.task ?? {
            id: taskId,
            contextId,
            artifacts: [],
            history: [ctx.userMessage],
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
            metadata: undefined,
          },
        ),
      );
      if (!resumed && text.startsWith("wait")) return status(TaskState.TASK_STATE_INPUT_REQUIRED, "Which colour?");
      if (text.startsWith("fail")) return status(TaskState.TASK_STATE_FAILED, "It broke");
      status(TaskState.TASK_STATE_WORKING);
      if (text.startsWith("slow")) await new Promise((resolve) => setTimeout(resolve, options.slowMs ?? 5_000));
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          append: false,
          lastChunk: true,
          metadata: undefined,
          artifact: {
            artifactId: randomUUID(),
            name: "answer",
            description: "",
            parts: answerParts(text, resumed),
            metadata: undefined,
            extensions: [],
          },
        }),
      );
      status(TaskState.TASK_STATE_COMPLETED);
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: "",
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    },
  };
}

function legacyExecutor(_options: FixtureOptions): LegacyExecutor {
  return {
    async execute(ctx: LegacyContext, bus: LegacyBus) {
      const { taskId, contextId, userMessage } = ctx;
      const text = userMessage.parts.map((p) => (p.kind === "text" ? p.text : p.kind === "data" ? JSON.stringify(p.data) : "")).join(" ");
      const now = () => new Date().toISOString();
      bus.publish(
        ctx.task ?? { kind: "task", id: taskId, contextId, status: { state: "submitted", timestamp: now() }, history: [userMessage] },
      );
      bus.publish({
        kind: "artifact-update",
        taskId,
        contextId,
        artifact: { artifactId: randomUUID(), parts: [{ kind: "text", text: `echo (0.3): ${text}` }] },
      });
      bus.publish({ kind: "status-update", taskId, contextId, status: { state: "completed", timestamp: now() }, final: true });
      bus.finished();
    },
    async cancelTask() {},
  };
}
