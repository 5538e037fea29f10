import { DomainError } from "../errors";

/** Raised when a run id is reused: AG-UI run ids are unique, a retry is a new run. */
export class RunIdTaken extends DomainError<"run_id_taken"> {
  override readonly name = "RunIdTaken";
  constructor(readonly runId: string) {
    super("run_id_taken", `A run with id "${runId}" exists already; every run needs a new runId`);
  }
}
