import { CompatibilityBoundary, enforceEvents, HttpAgent, transformChunks, verifyEvents } from "@ag-ui/client";
import { EventType, type AGUIEvent, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import type { Agent, AgentContext, AgentInfo } from "../../agents/agent";
import type { ApprovalStore } from "../../approvals";
import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import { EventQueue } from "../../streams/event-queue";
import { OpenItems } from "./open-items";
import { describeFailure, RemoteAgentFailure, shown } from "./remote-failure";
import { forwardResume, markForwarded, recordRemoteInterrupts, type RemoteRunScope } from "./remote-interrupts";
import { gatedFetch } from "./remote-stream";

/** Where a remote agent's runs go, as its source says at the moment a run starts. */
export interface RemoteEndpoint {
  url: string;
  /** Sent with every request (a bearer token, an API key); never logged. */
  headers: Record<string, string>;
  /** The outbound guard for this source (the console's, widened by an admin's allowance). */
  guard: OutboundGuard;
}

export interface RemoteAgentDeps {
  approvals: ApprovalStore;
  logger: Logger;
  /** The source's endpoint now, or undefined when the source is gone. */
  endpoint: () => Promise<RemoteEndpoint | undefined>;
  /** Told how each run went: the source's status follows it (undefined: it worked). */
  report: (failure: RemoteAgentFailure | undefined) => Promise<void>;
}

/** Bounds on one forwarded run. */
export interface RemoteRunLimits {
  /** The remote may stay silent this long (ms) before the run ends with remote_timeout. */
  idleMs: number;
  /** A whole run may take this long (ms). */
  runMs: number;
  /** The most one run's event stream may weigh (bytes). */
  maxBytes: number;
}

export const DEFAULT_REMOTE_LIMITS: RemoteRunLimits = { idleMs: 120_000, runMs: 30 * 60_000, maxBytes: 64 * 1024 * 1024 };

/** Events that may wait for the bridge before the console stops reading the remote's stream. */
const QUEUE_CAPACITY = 1024;

/** The run's queue: every event leaves it with a timestamp (the remote's own, or the time it came). */
class StampedQueue extends EventQueue<AGUIEvent> {
  override push(event: AGUIEvent): void {
    super.push(Number.isInteger(event.timestamp) ? event : ({ ...event, timestamp: Date.now() } as AGUIEvent));
  }
}

/** The failure codes that say something about the source itself (its status shows them). */
const SOURCE_FAILURES = new Set([
  "remote_address_refused",
  "remote_unreachable",
  "remote_unauthorized",
  "remote_not_found",
  "remote_http_error",
]);

/**
 * An Agent that runs elsewhere: each run is forwarded, as the client sent it (thread, run id,
 * messages, tools, context, state, forwarded props, and resume entries for the remote's own
 * interrupts), to the remote AG-UI endpoint through @ag-ui/client's HttpAgent and the outbound
 * guard. The remote's events come back through the client's schemas, chunk expansion and event
 * verifier, and are re-emitted into the local run, which the bridge records. The run ends with
 * exactly one terminal event: the remote's, or RUN_ERROR saying why the remote could not go on
 * (unreachable, refused credentials, a broken stream, silence), or a cancelled RUN_FINISHED when
 * the local run is stopped. The remote's interrupts come back unchanged and are listed in the
 * approvals inbox (see remote-interrupts.ts).
 */
export function remoteAguiAgent(
  info: AgentInfo & { remote: NonNullable<AgentInfo["remote"]> },
  deps: RemoteAgentDeps,
  limits = DEFAULT_REMOTE_LIMITS,
): Agent {
  return {
    info,
    run(input: RunAgentInput, ctx: AgentContext): AsyncIterable<AGUIEvent> {
      const queue = new StampedQueue(QUEUE_CAPACITY);
      void forward(info, deps, limits, input, ctx, queue)
        .catch((error: unknown) => {
          ctx.logger.error("remote agent run failed", { agent: info.name, runId: input.runId, error });
          queue.push({
            type: EventType.RUN_ERROR,
            message: "The console could not forward the run to the remote agent.",
            code: "agent_error",
          });
        })
        .finally(() => queue.close());
      return queue;
    },
  };
}

async function forward(
  info: AgentInfo & { remote: NonNullable<AgentInfo["remote"]> },
  deps: RemoteAgentDeps,
  limits: RemoteRunLimits,
  input: RunAgentInput,
  ctx: AgentContext,
  queue: StampedQueue,
): Promise<void> {
  const endpoint = await deps.endpoint();
  if (!endpoint) {
    queue.push({ type: EventType.RUN_ERROR, message: `The source of ${info.name} was removed.`, code: "remote_not_found" });
    return;
  }
  const scope: RemoteRunScope = {
    sourceId: info.remote.sourceId,
    agentName: info.name,
    threadId: input.threadId,
    runId: input.runId,
    principal: ctx.principal,
  };
  const forwarded = await forwardResume(deps, scope, input.resume ?? []);
  const { resume: _resume, ...rest } = input;
  const remoteInput: RunAgentInput = {
    ...rest,
    protocolVersion: "1.0",
    ...(forwarded.length ? { resume: forwarded.map((f) => f.entry) } : {}),
  };

  // One controller stops everything: the request, the stream's reader and the waits on the local queue.
  const abort = new AbortController();
  let stopped: RemoteAgentFailure | "cancelled" | undefined;
  let release: () => void = () => {};
  const halt = (reason: RemoteAgentFailure | "cancelled") => {
    if (stopped) return;
    stopped = reason;
    abort.abort();
    release();
  };
  const onCancel = () => halt("cancelled");
  if (ctx.signal.aborted) onCancel();
  else ctx.signal.addEventListener("abort", onCancel, { once: true });
  const silence = () =>
    halt(
      new RemoteAgentFailure(
        "remote_timeout",
        `The remote agent at ${shown(endpoint.url)} sent nothing for ${Math.round(limits.idleMs / 1000)} s.`,
      ),
    );
  let idle = setTimeout(silence, limits.idleMs);
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(silence, limits.idleMs);
  };
  const deadline = setTimeout(
    () =>
      halt(new RemoteAgentFailure("remote_timeout", `The remote agent's run took longer than ${Math.round(limits.runMs / 60_000)} min.`)),
    limits.runMs,
  );

  const client = new HttpAgent({
    url: endpoint.url,
    headers: endpoint.headers,
    threadId: input.threadId,
    fetch: gatedFetch({ guard: endpoint.guard, maxBytes: limits.maxBytes, onBytes: touch, room: () => queue.writable(abort.signal) }),
  });
  // HttpAgent sends its request with this controller's signal.
  client.abortController = abort;

  const open = new OpenItems();
  let terminal = false;
  /** The approvals' bookkeeping after RUN_FINISHED, which goes out once it is written. */
  let finishing: Promise<void> | undefined;
  let failure: RemoteAgentFailure | undefined;
  try {
    await new Promise<void>((resolve) => {
      release = resolve;
      if (stopped) return resolve();
      const events = new CompatibilityBoundary().run(remoteInput, client).pipe(enforceEvents(), transformChunks(), verifyEvents());
      const subscription = events.subscribe({
        next: (raw: BaseEvent) => {
          // After a stop, nothing more is taken (the client's own "aborted" RUN_ERROR included).
          if (stopped || terminal) return;
          touch();
          const event = raw as AGUIEvent;
          open.track(event);
          if (event.type === EventType.RUN_FINISHED) {
            terminal = true;
            // The remote took the resume: the approvals it answered are open no more, and its new
            // interrupts reach the inbox before the run is seen to end.
            const outcome = event.outcome;
            finishing = (async () => {
              try {
                await markForwarded(deps, scope, forwarded);
                if (outcome?.type === "interrupt") await recordRemoteInterrupts(deps, scope, outcome.interrupts);
              } catch (error) {
                ctx.logger.error("could not record a remote run's approvals", { agent: info.name, runId: input.runId, error });
              }
              queue.push({ ...event, threadId: input.threadId, runId: input.runId });
            })();
            return;
          }
          if (event.type === EventType.RUN_ERROR) terminal = true;
          queue.push(event);
        },
        error: (error: unknown) => {
          failure = describeFailure(error, endpoint.url);
          resolve();
        },
        complete: () => resolve(),
      });
      abort.signal.addEventListener("abort", () => subscription.unsubscribe(), { once: true });
    });
  } finally {
    clearTimeout(idle);
    clearTimeout(deadline);
    ctx.signal.removeEventListener("abort", onCancel);
    if (!stopped) abort.abort();
  }

  if (terminal) {
    await finishing;
    await deps.report(undefined);
    return;
  }
  if (stopped === "cancelled" && !open.subagentOpen) {
    for (const event of open.close()) queue.push(event);
    queue.push({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, outcome: { type: "cancelled" } } as AGUIEvent);
    return;
  }
  const reason =
    (stopped instanceof RemoteAgentFailure ? stopped : undefined) ??
    failure ??
    (stopped === "cancelled"
      ? new RemoteAgentFailure("remote_bad_stream", "The run was stopped while a subagent of the remote agent was running.")
      : new RemoteAgentFailure(
          "remote_bad_stream",
          `The remote agent at ${shown(endpoint.url)} ended its stream before the run finished.`,
        ));
  ctx.logger.warn("remote agent run failed", { agent: info.name, runId: input.runId, code: reason.code });
  if (SOURCE_FAILURES.has(reason.code)) await deps.report(reason);
  for (const event of open.close()) queue.push(event);
  queue.push({ type: EventType.RUN_ERROR, message: reason.message, code: reason.code });
}
