import { RunIdTaken } from "../../runs/errors";
import type { RunEnd, RunStart } from "../runs";
import { type RunLeases, RunLeaseTakenError } from "./leases";
import type { PgDb } from "./open";
import { PgRunStore } from "./runs";

/**
 * The run store of one console instance among several on PostgreSQL: a PgRunStore whose runs are
 * held under this instance's lease (./leases.ts) from before their row is written until their end
 * is. Another instance's AbandonedRuns sweep therefore ends a run only when the instance running it
 * died, never a live one.
 */
export class LeasedPgRunStore extends PgRunStore {
  constructor(
    db: PgDb,
    private readonly leases: RunLeases,
    onWriteError?: (error: unknown, runIds: string[]) => void,
  ) {
    super(db, onWriteError);
  }

  /** Throws RunIdTaken as PgRunStore does, also when another instance holds the id's lease. */
  override async start(input: RunStart): Promise<void> {
    try {
      await this.leases.hold(input.runId);
    } catch (error) {
      if (error instanceof RunLeaseTakenError) throw new RunIdTaken(input.runId);
      throw error;
    }
    try {
      await super.start(input);
    } catch (error) {
      await this.leases.release(input.runId);
      throw error;
    }
  }

  /**
   * The lease is given up once the end is recorded, without waiting for the unlock's answer: the
   * run is no longer running, so nothing reads its lease, and a later hold of the same id is sent
   * after the unlock on the lease connection.
   */
  override async finish(runId: string, end: RunEnd): Promise<void> {
    try {
      await super.finish(runId, end);
    } finally {
      void this.leases.release(runId);
    }
  }
}
