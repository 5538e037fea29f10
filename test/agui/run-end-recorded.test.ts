// A store whose writes take time (PostgreSQL's do; SQLite's happen within the call): the stream's
// end must not reach the client before the run's end is recorded, or a client that reads the run
// (or resumes it on another instance) the moment its stream ends finds it still running.
import { randomUUID } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { LOCAL_PRINCIPAL } from "@/lib/auth/principal";
import { SqliteRunStore, type RunEnd } from "@/lib/db/runs";
import { AguiBridge } from "@/lib/integrations/agui";
import { parseFrames, userMessage } from "../support/agui-client";
import { testServices } from "../support/services";

const services = testServices({ AGENT_STREAM_DELAY_MS: "0" });
afterAll(() => services.close());

/** The SQLite store, with a run's end written 50 ms after it is asked for. */
class SlowFinish extends SqliteRunStore {
  override async finish(runId: string, end: RunEnd): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 50));
    await super.finish(runId, end);
  }
}

it("the stream ends only once the run's end is recorded", async () => {
  const runs = new SlowFinish(services.database.db);
  const { executor, approvals, grants, logger } = services;
  const bridge = new AguiBridge({ executor, approvals, grants, runs, logger });
  const input = {
    threadId: `t-${randomUUID()}`,
    runId: `r-${randomUUID()}`,
    messages: [userMessage("hello")],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const run = await bridge.open(services.agents.default, input, LOCAL_PRINCIPAL);
  let raw = "";
  for await (const chunk of run.stream(new AbortController().signal)) raw += chunk;
  expect(parseFrames(raw).at(-1)?.type).toBe("RUN_FINISHED");
  expect(await runs.getRun(input.runId)).toMatchObject({ status: "finished", finishedAt: expect.any(Number) });
});
