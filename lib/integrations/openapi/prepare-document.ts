import { definitionDigest, normalise } from "../../tools/registry";
import type { ToolSpec } from "../../tools/spec";
import { parseDocumentSource, type DocumentSource, type LoadedDocument } from "./load-document";
import { planOpenApiTools, type OpenApiPlan, type OpenApiPlanOptions, type PlannedOperation } from "./plan-tools";
import { validateDocument } from "./validate-document";

/** A planned operation without its tool definition (what a preview lists). */
export type OperationOutline = Omit<PlannedOperation, "spec">;

/** A tool definition checked as the registry checks it, with its definition digest, ready to store. */
export interface PreparedTool {
  spec: ToolSpec;
  digest: string;
}

/** Everything about a document but its tools: what the worker sends once the tools are sent. */
export interface PreparedOutline {
  location: string;
  url?: string;
  /** The parsed document as JSON text, as the source row keeps it. */
  documentText: string;
  plan: Omit<OpenApiPlan, "operations"> & { operations: OperationOutline[] };
}

/** Plan options that can cross to a worker thread (no callbacks). */
export type PrepareOptions = Omit<OpenApiPlanOptions, "onProgress">;

/**
 * Parse, validate (within the validator's budget, see validateDocument), plan, and check every
 * tool definition as ToolRegistry.addMany would: the CPU-heavy, pure steps of an import, which run
 * on a worker thread (see prepare-off-thread.ts). `onTools` receives the tools in order, in
 * batches; the outline comes last. Throws OpenApiDocumentError, OpenApiDocumentTooDeep,
 * OpenApiOptionsError or ToolDefinitionError, as the in-thread steps did.
 */
export async function prepareDocument(
  source: DocumentSource,
  options: PrepareOptions,
  hooks: { onTools?: (tools: PreparedTool[]) => void; onProgress?: (done: number, total: number) => void; batch?: number } = {},
): Promise<PreparedOutline> {
  const loaded: LoadedDocument = parseDocumentSource(source);
  const skipped = await validateDocument(loaded.document);
  const plan = planOpenApiTools(loaded, { ...options, ...(hooks.onProgress && { onProgress: hooks.onProgress }) });
  if (skipped) plan.warnings.unshift(skipped);
  const batch = hooks.batch ?? 250;
  const operations: OperationOutline[] = [];
  let pending: PreparedTool[] = [];
  for (const { spec, ...outline } of plan.operations) {
    operations.push(outline);
    if (!hooks.onTools) continue;
    // The sourceId is set by the importer once the source row exists; it takes no part in the checks or the digest.
    const checked = normalise(spec);
    pending.push({ spec: checked, digest: definitionDigest(checked) });
    if (pending.length >= batch) {
      hooks.onTools(pending);
      pending = [];
    }
  }
  if (pending.length) hooks.onTools?.(pending);
  return {
    location: loaded.location,
    ...(loaded.url && { url: loaded.url }),
    documentText: JSON.stringify(loaded.document),
    plan: { ...plan, operations },
  };
}
