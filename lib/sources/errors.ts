import { DomainError } from "../errors";

/** No source has this id. */
export class SourceNotFound extends DomainError<"source_not_found"> {
  override readonly name = "SourceNotFound";
  constructor(readonly sourceId: string) {
    super("source_not_found", `No source with id "${sourceId}"`);
  }
}
