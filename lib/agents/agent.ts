import type { AGUIEvent, RunAgentInput } from "@ag-ui/core";
import type { Principal } from "../auth/principal";
import type { Executor, Surface } from "../execution";
import type { Logger } from "../log";

/** What the console tells clients about an agent (GET /api/agui). */
export interface AgentInfo {
  name: string;
  description: string;
  /** A scripted model or a real provider; shown in the UI so nobody mistakes a demo for a model. */
  model: string;
  capabilities: {
    tools: boolean;
    clientTools: boolean;
    approvals: boolean;
    sharedState: boolean;
    reasoning: boolean;
  };
  /** Set for an agent that runs elsewhere: the console forwards its runs to `url` (an AG-UI endpoint). */
  remote?: { protocol: "agui"; url: string; sourceId: string };
}

/** What an agent run may use: the caller, the shared executor, a stop signal. */
export interface AgentContext {
  principal: Principal;
  /** Aborted when the client disconnects or the run is cancelled; stop and release what you hold. */
  signal: AbortSignal;
  executor: Executor;
  logger: Logger;
  /** The surface the caller came through, recorded on the run's calls and approvals; "agui" unless set. */
  surface?: Surface;
}

/**
 * The agent contract: `run` yields AG-UI events from RUN_STARTED to exactly one RUN_FINISHED or
 * RUN_ERROR, stops when `ctx.signal` aborts, and releases what it holds in `finally`.
 *
 * The AG-UI bridge answers the console's own interrupts (calls waiting for approval) before the
 * agent runs: the agent gets the thread with those answers in its messages, and in `input.resume`
 * only entries for interrupts the console does not know (the agent's own, if it has any).
 */
export interface Agent {
  info: AgentInfo;
  run(input: RunAgentInput, ctx: AgentContext): AsyncIterable<AGUIEvent>;
}
