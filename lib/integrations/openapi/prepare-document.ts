import { definitionDigest, normalise } from "../../tools/registry";
import type { ToolSpec } from "../../tools/spec";
import { parseDocumentSource, type DocumentSource } from "./load-document";
import { planOpenApiTools, type OpenApiPlan, type OpenApiPlanOptions, type PlannedOperation } from "./plan-tools";
import { validateDocument } from "./validate-document";

/** A planned operation without its tool definition: what a preview lists. */
export type OperationOutline = Omit<PlannedOperation, "spec">;

/** A tool definition checked as ToolRegistry.addMany checks it, with its definition digest: ready to store. */
export interface PreparedTool {
  spec: ToolSpec;
  digest: string;
}

/** Everything a preparation finds but the tools. */
export interface PreparedOutline {
  location: string;
  url?: string;
  /** The parsed document as JSON text, as the source row keeps it. */
  documentText: string;
  /** The plan; its `operations` are listed only when the tools were not asked for (the tools hold them). */
  plan: Omit<OpenApiPlan, "operations"> & { operations: OperationOutline[] };
}

/** A prepared document: its outline and, when asked for, its checked tools in the plan's order. */
export interface PreparedDocument extends PreparedOutline {
  tools: PreparedTool[];
}

/** Plan options that can cross to a worker thread (no callbacks). */
export type PrepareOptions = Omit<OpenApiPlanOptions, "onProgress">;

export interface PrepareHooks {
  /** Receives the checked tools in the plan's order, a batch at a time; without it no tool is checked. */
  onTools?: (tools: PreparedTool[]) => void;
  onProgress?: (done: number, total: number) => void;
  /** Tools per onTools call (default 250). */
  batch?: number;
}

/**
 * Parse, validate (within the validator's budget, see validateDocument), plan, and with
 * `hooks.onTools` check every tool definition and compute its digest as ToolRegistry.addMany
 * would: the CPU-bound, pure steps of an import, which run on a worker thread (prepare-in-worker.ts).
 * Throws OpenApiDocumentError, OpenApiDocumentTooDeep, OpenApiOptionsError or ToolDefinitionError.
 */
export async function prepareDocument(source: DocumentSource, options: PrepareOptions, hooks: PrepareHooks = {}): Promise<PreparedOutline> {
  const loaded = parseDocumentSource(source);
  const skipped = await validateDocument(loaded.document);
  const plan = planOpenApiTools(loaded, { ...options, ...(hooks.onProgress && { onProgress: hooks.onProgress }) });
  if (skipped) plan.warnings.unshift(skipped);
  const batch = hooks.batch ?? 250;
  const operations: OperationOutline[] = [];
  let pending: PreparedTool[] = [];
  for (const { spec, ...outline } of plan.operations) {
    // A preview lists the operations; an import has them in its tools, and thousands of outlines
    // more to copy to the importing thread in one message held its event loop for milliseconds.
    if (!hooks.onTools) {
      operations.push(outline);
      continue;
    }
    // The importer sets the source id once the source row exists; it takes no part in the checks or the digest.
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
