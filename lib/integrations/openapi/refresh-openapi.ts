import { refreshSource } from "../../sources/refresh-source";
import type { AuthRef } from "./auth";
import { sourceCredentials } from "./credentials";
import type { OpenApiBinding } from "./binding";
import { OpenApiOptionsError } from "./errors";
import { assertBaseUrls, prepare, type OpenApiImportDeps, type OpenApiImportOptions, type OpenApiImportResult } from "./import-openapi";
import { operationHandler } from "./operation-handler";

/**
 * Re-read a source's document (from its URL, else the stored copy) and replace its tools, keeping
 * what operators set on tools that survive. On failure the old tools stay, the source's status
 * becomes "error" with the reason, and the error is thrown (as importOpenApi's, or SourceNotFound).
 */
export function refreshOpenApiSource(
  deps: OpenApiImportDeps,
  id: string,
  extra: Pick<OpenApiImportOptions, "onProgress"> = {},
): Promise<OpenApiImportResult> {
  const { sources } = deps;
  return refreshSource(deps, id, "openapi", async (source) => {
    const options = { ...(source.options as OpenApiImportOptions), ...extra };
    const ref = (await sources.credentials(id))?.authRef as AuthRef | null | undefined;
    // The plan only needs where the credential goes (to leave that parameter out), not the secret.
    const auth = ref
      ? ref.kind === "bearer"
        ? { kind: "bearer" as const, token: "-" }
        : { kind: ref.kind, name: ref.name, value: "-" }
      : undefined;
    const input = /^https?:\/\//i.test(source.location) ? { url: source.location } : { text: (await sources.document(id)) ?? "" };
    if ("text" in input && !input.text) throw new OpenApiOptionsError("The source has no stored document to refresh from");
    const prepared = await prepare(input, { ...options, auth, outbound: deps.outbound }, true);
    await assertBaseUrls(prepared.plan, deps.outbound);
    const credentials = sourceCredentials(sources, id);
    return {
      tools: prepared.tools.map(({ spec, digest }) => ({
        spec,
        digest,
        handler: operationHandler(spec.binding as OpenApiBinding, { credentials, logger: deps.logger, outbound: deps.outbound }),
      })),
      warnings: prepared.plan.warnings,
      update: { document: prepared.documentText },
    };
  });
}
