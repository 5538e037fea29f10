import type { SourceStore } from "../../db/sources";
import type { AuthRef } from "./auth";
import type { CredentialLookup } from "./operation-handler";

/** Reads a source's credential from the store at call time. */
export function sourceCredentials(sources: SourceStore, sourceId: string | null | undefined): CredentialLookup {
  return async () => {
    if (!sourceId) return undefined;
    const row = await sources.credentials(sourceId);
    if (!row?.authRef || !row.secret) return undefined;
    return { ref: row.authRef as unknown as AuthRef, secret: row.secret };
  };
}
