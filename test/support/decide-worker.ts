// A second process-like contender for approval decisions: its own SQLite connection to the same
// file, released by a barrier in shared memory so that both workers decide at the same moment.
import { parentPort, workerData } from "node:worker_threads";
import { ApprovalStore } from "../../lib/approvals";
import { openDatabase } from "../../lib/db";

export interface DecideRequest {
  round: number;
  approvalId: string;
  approved: boolean;
  decidedBy: string;
}

export interface DecideAnswer {
  round: number;
  decidedBy: string;
  ok: boolean;
  status?: string;
  error?: { name: string; message: string };
}

const { file, barrier } = workerData as { file: string; barrier: SharedArrayBuffer };
const slots = new Int32Array(barrier);
const handle = openDatabase(file);
const store = new ApprovalStore(handle.db);

parentPort!.on("message", (message: DecideRequest | "close") => {
  if (message === "close") {
    handle.close();
    parentPort!.close();
    return;
  }
  const { round } = message;
  Atomics.add(slots, round * 2, 1);
  Atomics.notify(slots, round * 2);
  // Block until the main thread lets every contender go at once.
  Atomics.wait(slots, round * 2 + 1, 0, 10_000);
  void decide(message).then((answer) => parentPort!.postMessage(answer));
});

async function decide({ round, approvalId, approved, decidedBy }: DecideRequest): Promise<DecideAnswer> {
  try {
    const approval = await store.decide(approvalId, { approved, decidedBy, reason: approved ? undefined : "no" });
    return { round, decidedBy, ok: true, status: approval.status };
  } catch (error) {
    const e = error as Error;
    return { round, decidedBy, ok: false, error: { name: e.name, message: e.message } };
  }
}

parentPort!.postMessage("ready");
