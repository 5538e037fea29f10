// A run store that keeps nothing, for `npm run bench -- agui`: the AG-UI endpoint served over it
// does all its work except the storage, which tells what the endpoint's share of the bare route
// could be with its storage costing nothing at all.
import type { AGUIEvent } from "@ag-ui/core";
import type { Page } from "../../lib/db/paging";
import type { Run, RunStore, RunSummary, Thread, ThreadSummary } from "../../lib/db/runs";

/** Accepts every write and forgets it; every thread is new, every read finds nothing. */
export class DiscardingRunStore implements RunStore {
  async start(): Promise<void> {}
  append(): void {}
  appendRecord(): void {}
  async flush(): Promise<void> {}
  async finish(): Promise<void> {}
  async threadOwner(): Promise<string | undefined> {
    return undefined;
  }
  async getThread(): Promise<Thread | undefined> {
    return undefined;
  }
  async listThreads(): Promise<ThreadSummary[]> {
    return [];
  }
  async getRun(): Promise<Run | undefined> {
    return undefined;
  }
  async listRuns(): Promise<Page<RunSummary>> {
    return { items: [] };
  }
  async events(): Promise<AGUIEvent[]> {
    return [];
  }
}
