import { SourceNotFound } from "../../sources/errors";
import { DuplicateTool } from "../../tools/errors";
import { normalise } from "../../tools/registry";
import type { AuthRef } from "./auth";
import { sourceCredentials } from "./credentials";
import { OpenApiOptionsError } from "./errors";
import { assertBaseUrls, prepare, type OpenApiImportDeps, type OpenApiImportOptions, type OpenApiImportResult } from "./import-openapi";
import { operationHandler } from "./operation-handler";

/**
 * Re-read a source's document (from its URL, else the stored copy) and replace its tools, keeping
 * what operators set on tools that survive. On failure the old tools stay, the source's status
 * becomes "error" with the reason, and the error is thrown (as importOpenApi's, or SourceNotFound).
 */
export async function refreshOpenApiSource(
  deps: OpenApiImportDeps,
  id: string,
  extra: Pick<OpenApiImportOptions, "onProgress"> = {},
): Promise<OpenApiImportResult> {
  const { sources } = deps;
  const source = sources.get(id);
  if (!source || source.kind !== "openapi") throw new SourceNotFound(id);
  const options = { ...(source.options as OpenApiImportOptions), ...extra };
  sources.update(id, { status: "refreshing" });
  try {
    const ref = sources.credentials(id)?.authRef as AuthRef | null | undefined;
    // The plan only needs where the credential goes (to leave that parameter out), not the secret.
    const auth = ref
      ? ref.kind === "bearer"
        ? { kind: "bearer" as const, token: "-" }
        : { kind: ref.kind, name: ref.name, value: "-" }
      : undefined;
    const input = /^https?:\/\//i.test(source.location) ? { url: source.location } : { text: sources.document(id) ?? "" };
    if ("text" in input && !input.text) throw new OpenApiOptionsError("The source has no stored document to refresh from");
    const { loaded, plan } = await prepare(input, { ...options, auth, outbound: deps.outbound });
    await assertBaseUrls(plan, deps.outbound);
    // The source may have been removed while its document was read; from here on nothing waits.
    if (!sources.get(id)) throw new SourceNotFound(id);
    const specs = plan.operations.map((op) => normalise({ ...op.spec, sourceId: id }));
    const clash = specs.find((spec) => {
      const existing = deps.registry.get(spec.name);
      return existing && existing.sourceId !== id;
    });
    if (clash) throw new DuplicateTool(clash.name);

    const credentials = sourceCredentials(sources, id);
    const tools = deps.registry.replaceSource(
      id,
      plan.operations.map((op) => ({
        spec: { ...op.spec, sourceId: id },
        handler: operationHandler(op.spec.binding, { credentials, logger: deps.logger, outbound: deps.outbound }),
      })),
    );
    sources.update(id, { status: "ok", statusMessage: null, lastRefreshAt: Date.now(), document: JSON.stringify(loaded.document) });
    deps.logger.info("openapi source refreshed", { source: id, tools: tools.length });
    return { source: sources.get(id)!, tools, warnings: plan.warnings };
  } catch (error) {
    sources.update(id, { status: "error", statusMessage: error instanceof Error ? error.message.slice(0, 1000) : String(error) });
    throw error;
  }
}
