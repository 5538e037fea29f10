import { z } from "zod";
import {
  importOpenApi,
  OpenApiDocumentError,
  OpenApiFetchError,
  OpenApiOptionsError,
  previewOpenApi,
  refreshOpenApiSource,
  type OpenApiImportOptions,
  type OpenApiInput,
} from "../integrations/openapi";
import type { OpenApiAuth } from "../integrations/openapi/auth";
import type { Services } from "../services";
import { removeSource } from "../sources/remove-source";
import { SourceNotFound } from "../sources/errors";
import { SourceStore } from "../sources/store";
import { DuplicateTool, ToolDefinitionError } from "../tools/errors";
import { authorize } from "./authorize";
import { readJsonBody, routeParam, type RouteContext } from "./request-input";
import { errorResponse, json } from "./respond";
import { toolSummary } from "./tool-summary";

export type SourceRoutesDeps = Pick<Services, "registry" | "database" | "access" | "logger">;

/** Documents are read up to 10 MB; the JSON around them adds escaping. */
const MAX_IMPORT_BODY_BYTES = 24 * 1024 * 1024;

const names = z.array(z.string().trim().min(1).max(300)).max(500);

const AuthInput = z
  .object({
    kind: z.enum(["bearer", "header", "query"]),
    /** The header or query parameter that carries the secret (header and query kinds). */
    name: z.string().trim().max(200).optional(),
    secret: z.string().max(8192).optional(),
  })
  .strict()
  .superRefine((auth, ctx) => {
    if (auth.kind !== "bearer" && !auth.name) ctx.addIssue({ code: "custom", path: ["name"], message: `A ${auth.kind} credential needs the name of its ${auth.kind === "header" ? "header" : "query parameter"}` });
  });

const ImportOptions = z
  .object({
    operations: z.object({ tags: names.optional(), paths: names.optional(), operationIds: names.optional() }).strict().optional(),
    prefix: z.string().trim().max(32).optional(),
    baseUrl: z.string().trim().max(2000).optional(),
    allowPrivate: z.boolean().optional(),
    auth: AuthInput.optional(),
  })
  .strict();

const DocumentInput = {
  url: z.string().trim().min(1).max(2000).optional(),
  text: z.string().min(1).optional(),
  /** The uploaded file's name, shown as the source's location. */
  filename: z.string().trim().max(200).optional(),
  options: ImportOptions.default({}),
};

const oneDocument = (input: { url?: string; text?: string }) => (input.url === undefined) !== (input.text === undefined);
const oneDocumentIssue = { message: "Send the document as exactly one of url or text" };

const PreviewBody = z.object(DocumentInput).strict().refine(oneDocument, oneDocumentIssue);

const ImportBody = z
  .object({ ...DocumentInput, name: z.string().trim().min(1).max(200).optional() })
  .strict()
  .refine(oneDocument, oneDocumentIssue)
  .superRefine((body, ctx) => {
    if (body.options.auth && !body.options.auth.secret) ctx.addIssue({ code: "custom", path: ["options", "auth", "secret"], message: "The credential's secret is required" });
  });

type DocumentBody = z.output<typeof PreviewBody>;

/**
 * Imported sources over REST (scope "tools"): GET /api/sources (never the secret),
 * POST /api/sources/openapi/preview, POST /api/sources/openapi (import, all or nothing),
 * POST /api/sources/[id]/refresh and DELETE /api/sources/[id] (with its tools).
 */
export function sourceRoutes(deps: SourceRoutesDeps) {
  const { registry, access, logger } = deps;
  const sources = new SourceStore(deps.database.db);

  async function list(request: Request): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    return json({ items: sources.list() });
  }

  async function preview(request: Request): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const body = await readJsonBody(request, PreviewBody, MAX_IMPORT_BODY_BYTES);
    if (!body.ok) return body.response;
    try {
      const result = await previewOpenApi(documentOf(body.data), importOptions(body.data.options, true));
      // An import is all or nothing: say now which names would collide with registered tools.
      const taken = result.operations.filter((op) => registry.get(op.toolName)).map((op) => op.toolName);
      const warnings = taken.length
        ? [...result.warnings, `${taken.length === 1 ? "A tool" : `${taken.length} tools`} with ${taken.length === 1 ? "this name is" : "these names are"} already registered, so the import would fail: ${taken.slice(0, 5).join(", ")}${taken.length > 5 ? ", …" : ""}. Set a name prefix.`]
        : result.warnings;
      return json({ ...result, warnings });
    } catch (error) {
      return importError(error);
    }
  }

  async function importDocument(request: Request): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const body = await readJsonBody(request, ImportBody, MAX_IMPORT_BODY_BYTES);
    if (!body.ok) return body.response;
    try {
      const result = await importOpenApi(deps, documentOf(body.data), { ...importOptions(body.data.options, false), name: body.data.name });
      logger.info("openapi source imported over REST", { source: result.source.id, by: caller.principal.id });
      return json({ source: result.source, tools: result.tools.map(toolSummary), warnings: result.warnings }, { status: 201 });
    } catch (error) {
      return importError(error);
    }
  }

  async function refresh(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const id = await routeParam(context, "id");
    const source = sources.get(id);
    if (!source) return sourceNotFound(id);
    if (source.kind !== "openapi") return errorResponse(422, "not_refreshable", `A ${source.kind} source cannot be refreshed here`);
    try {
      const result = await refreshOpenApiSource(deps, id);
      return json({ source: result.source, tools: result.tools.map(toolSummary), warnings: result.warnings });
    } catch (error) {
      return importError(error);
    }
  }

  async function remove(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const id = await routeParam(context, "id");
    try {
      const tools = removeSource({ registry, sources }, id);
      logger.info("source removed over REST", { source: id, tools, by: caller.principal.id });
      return json({ removed: id, tools });
    } catch (error) {
      if (error instanceof SourceNotFound) return sourceNotFound(id);
      throw error;
    }
  }

  return { list, preview, importDocument, refresh, remove };
}

function documentOf(body: DocumentBody): OpenApiInput {
  if (body.url !== undefined) return { url: body.url };
  return { text: body.text!, ...(body.filename && { filename: body.filename }) };
}

function importOptions(options: DocumentBody["options"], preview: boolean): OpenApiImportOptions {
  const { auth, operations, prefix, baseUrl, allowPrivate } = options;
  return {
    ...(operations && { operations }),
    ...(prefix && { prefix }),
    ...(baseUrl && { baseUrl }),
    ...(allowPrivate !== undefined && { allowPrivate }),
    // A preview only needs where the credential goes (that parameter is left out of the tools), not the secret.
    ...(auth && { auth: toAuth(auth, preview ? auth.secret || "-" : auth.secret!) }),
  };
}

function toAuth(auth: { kind: OpenApiAuth["kind"]; name?: string }, secret: string): OpenApiAuth {
  return auth.kind === "bearer" ? { kind: "bearer", token: secret } : { kind: auth.kind, name: auth.name!, value: secret };
}

/** The REST answer for what an import, preview or refresh can throw; anything else is rethrown (a 500). */
function importError(error: unknown): Response {
  if (error instanceof OpenApiDocumentError) {
    return errorResponse(422, "invalid_document", error.problems.length ? error.message.split(":\n")[0]! : error.message, error.problems.map((message) => ({ path: "", message })));
  }
  if (error instanceof OpenApiOptionsError) return errorResponse(422, "invalid_options", error.message);
  if (error instanceof OpenApiFetchError) return errorResponse(422, "document_unreachable", error.message);
  if (error instanceof DuplicateTool) return errorResponse(409, "duplicate_tool", `${error.message}; import with a name prefix, or remove that tool first`);
  if (error instanceof ToolDefinitionError) return errorResponse(422, "invalid_tool_definition", error.message, error.path ? [{ path: `/${error.path}`, message: error.message }] : undefined);
  if (error instanceof SourceNotFound) return errorResponse(404, "source_not_found", error.message);
  throw error;
}

function sourceNotFound(id: string): Response {
  return errorResponse(404, "source_not_found", `No source with id "${id}"`);
}
