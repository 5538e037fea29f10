/** No source has this id. */
export class SourceNotFound extends Error {
  override readonly name = "SourceNotFound";
  readonly kind = "source_not_found";
  constructor(readonly sourceId: string) {
    super(`No source with id "${sourceId}"`);
  }
}
