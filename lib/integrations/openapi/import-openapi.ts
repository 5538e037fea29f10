import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import type { SourceStore, SourceSummary } from "../../db/sources";
import type { ToolRegistry } from "../../tools/registry";
import type { RegisteredTool } from "../../tools/spec";
import { OpenApiAuth, splitAuth } from "./auth";
import { sourceCredentials } from "./credentials";
import { OpenApiOptionsError } from "./errors";
import type { OpenApiBinding } from "./binding";
import { outboundOf, readDocumentSource, type LoadOptions, type OpenApiInput } from "./load-document";
import { operationHandler } from "./operation-handler";
import type { OpenApiPlan, OpenApiPlanOptions, OperationFilter } from "./plan-tools";
import type { PreparedDocument } from "./prepare-document";
import { prepareInWorker } from "./prepare-in-worker";
import { freshTurn } from "../../streams/turn-budget";

export interface OpenApiImportOptions extends OpenApiPlanOptions, Omit<LoadOptions, "outbound"> {
  /** The source's name; defaults to the document's title. */
  name?: string;
  /**
   * What this source may reach although private, on top of OUTBOUND_ALLOW (an admin's allowance:
   * ranges, addresses, host names). The caller passes the guard it widens as `deps.outbound`;
   * the entries are kept with the source for its calls and refreshes.
   */
  allow?: string[];
}

/** What an import needs from the console's services (`Services` fits). */
export interface OpenApiImportDeps {
  registry: ToolRegistry;
  sources: SourceStore;
  logger: Logger;
  /** How documents are fetched and tools call their API. */
  outbound: OutboundGuard;
}

/** An operation as the preview lists it. */
export interface OperationPreview {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  toolName: string;
  effects: "read" | "write" | "destructive";
  confirm: boolean;
  tags: string[];
}

export interface OpenApiPreview {
  title: string;
  version: string;
  openapi: string;
  location: string;
  operations: OperationPreview[];
  securitySchemes: OpenApiPlan["securitySchemes"];
  baseUrls: string[];
  warnings: string[];
}

export interface OpenApiImportResult {
  source: SourceSummary;
  tools: RegisteredTool[];
  warnings: string[];
}

/** The import options kept on the source row, for a refresh: everything but the secret and callbacks. */
interface StoredOptions {
  operations?: OperationFilter;
  prefix?: string;
  baseUrl?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  retries?: number;
  policy?: OpenApiPlanOptions["policy"];
  allow?: string[];
}

/**
 * What importing would do: the operations, the tool names they become, the security schemes and
 * warnings. Registers nothing. Throws OpenApiFetchError, OpenApiDocumentError or OpenApiOptionsError.
 */
export async function previewOpenApi(
  input: OpenApiInput,
  options: OpenApiImportOptions & Pick<LoadOptions, "outbound"> = {},
): Promise<OpenApiPreview> {
  const { location, plan } = await prepare(input, options, false);
  const warnings = [...plan.warnings];
  for (const url of plan.baseUrls) {
    const refused = url ? await outboundOf(options).check(url, true) : "no absolute server URL; pass a base URL";
    if (refused) warnings.push(`Base URL ${url || "(none)"}: ${refused}`);
  }
  return {
    title: plan.title,
    version: plan.version,
    openapi: plan.openapi,
    location,
    operations: plan.operations.map(({ method, path, operationId, summary, toolName, effects, confirm, tags }) => ({
      method,
      path,
      operationId,
      summary,
      toolName,
      effects,
      confirm,
      tags,
    })),
    securitySchemes: plan.securitySchemes,
    baseUrls: plan.baseUrls,
    warnings,
  };
}

/**
 * Import a document as a source with one tool per operation, all or nothing: on any error no
 * tool and no source row is left. The secret is stored for the calls and never returned. The
 * document is parsed, validated and planned on a worker thread, and its tools are written a batch
 * at a time (ToolRegistry.importSource), so a large document never holds the event loop.
 * Throws OpenApiFetchError, OpenApiDocumentError, OpenApiOptionsError, DuplicateTool or ToolDefinitionError.
 */
export async function importOpenApi(
  deps: OpenApiImportDeps,
  input: OpenApiInput,
  options: OpenApiImportOptions = {},
): Promise<OpenApiImportResult> {
  const auth = parseAuth(options.auth);
  const prepared = await prepare(input, { ...options, outbound: deps.outbound }, true);
  const { plan } = prepared;
  await assertBaseUrls(plan, deps.outbound);
  const { sources } = deps;
  const split = auth && splitAuth(auth);
  // The document's write, then the tools', each start a turn of the event loop of their own.
  await freshTurn();
  return sources.createImported(
    {
      kind: "openapi",
      name: (options.name ?? plan.title).slice(0, 200),
      location: prepared.location,
      authRef: split ? { ...split.ref } : null,
      authSecret: split?.secret ?? null,
      options: storedOptions(options) as Record<string, unknown>,
      document: prepared.documentText,
    },
    async (source) => {
      await freshTurn();
      const credentials = sourceCredentials(sources, source.id);
      const tools = await deps.registry.importSource(
        source.id,
        prepared.tools.map(({ spec, digest }) => ({
          spec,
          digest,
          handler: operationHandler(spec.binding as OpenApiBinding, { credentials, logger: deps.logger, outbound: deps.outbound }),
        })),
      );
      deps.logger.info("openapi source imported", {
        source: source.id,
        location: prepared.location,
        tools: tools.length,
        auth: split?.ref.kind ?? "none",
      });
      return { source: (await sources.get(source.id))!, tools, warnings: plan.warnings };
    },
  );
}

/**
 * Read the document here (a URL through the outbound guard), then parse, validate (within the
 * validator's budget, see validateDocument) and plan it on a worker thread; with `withTools`, also
 * check every tool definition as the registry would. Throws as importOpenApi does.
 */
export async function prepare(
  input: OpenApiInput,
  options: OpenApiImportOptions & Pick<LoadOptions, "outbound">,
  withTools: boolean,
): Promise<PreparedDocument> {
  const source = await readDocumentSource(input, options);
  const { operations, prefix, baseUrl, auth, timeoutMs, maxResponseBytes, retries, policy, onProgress } = options;
  return prepareInWorker(
    source,
    JSON.parse(JSON.stringify({ operations, prefix, baseUrl, auth, timeoutMs, maxResponseBytes, retries, policy })) as Omit<
      OpenApiPlanOptions,
      "onProgress"
    >,
    withTools,
    { ...(onProgress && { onProgress }) },
  );
}

/**
 * Refuse base URLs the outbound guard would refuse, with a clear error at import rather than at the
 * first call (a name that does not resolve yet passes: the guard checks it again at every call).
 */
export async function assertBaseUrls(plan: Pick<OpenApiPlan, "baseUrls">, outbound: OutboundGuard): Promise<void> {
  for (const url of plan.baseUrls) {
    if (!url) throw new OpenApiOptionsError("Some operations have no absolute server URL: pass a base URL");
    const refused = await outbound.check(url, true);
    if (refused) throw new OpenApiOptionsError(`The base URL ${url} cannot be used: ${refused}`);
  }
}

function parseAuth(auth: unknown): OpenApiAuth | undefined {
  if (auth === undefined) return undefined;
  const parsed = OpenApiAuth.safeParse(auth);
  if (!parsed.success)
    throw new OpenApiOptionsError(`Bad auth: ${parsed.error.issues.map((i) => `${i.path.join(".") || "auth"} ${i.message}`).join("; ")}`);
  return parsed.data;
}

export function storedOptions(options: OpenApiImportOptions): StoredOptions {
  const { operations, prefix, baseUrl, timeoutMs, maxResponseBytes, retries, policy, allow } = options;
  return JSON.parse(JSON.stringify({ operations, prefix, baseUrl, timeoutMs, maxResponseBytes, retries, policy, allow })) as StoredOptions;
}
