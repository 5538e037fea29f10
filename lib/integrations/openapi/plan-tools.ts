import { isJsonObject } from "../../json/canonical";
import type { JsonSchema, Target, ToolSpecInput } from "../../tools/spec";
import type { OpenApiAuth } from "./auth";
import type { OpenApiBinding, ParameterBinding } from "./binding";
import { OpenApiDocumentError, OpenApiOptionsError } from "./errors";
import type { LoadedDocument } from "./load-document";
import { dropUnsupportedPatterns } from "./linear-patterns";
import { isDotSegment } from "./operation-handler";
import { SchemaConverter } from "./schema-converter";
import { operationToolName, uniqueToolName } from "./tool-name";

const METHODS = ["get", "put", "post", "delete", "patch", "head"] as const;
type Method = (typeof METHODS)[number];
const BODY_TYPES = [/^application\/json$/i, /^application\/[^;]*\+json$/i, /^application\/x-www-form-urlencoded$/i, /^text\/plain$/i];
const DESCRIPTION_MAX = 1024;

/** Which operations become tools; each list given narrows the set (a path may end in `*`). */
export interface OperationFilter {
  tags?: string[];
  paths?: string[];
  operationIds?: string[];
}

export interface OpenApiPlanOptions {
  operations?: OperationFilter;
  /** Put before every tool name, e.g. "petstore_". */
  prefix?: string;
  /** Call this server instead of the document's `servers` (http or https). */
  baseUrl?: string;
  auth?: OpenApiAuth;
  /** Per call, default 30 s. */
  timeoutMs?: number;
  /** Default 5 MB. */
  maxResponseBytes?: number;
  /** Retries after 429, 5xx and network failures; default 2. */
  retries?: number;
  /** Policy for every tool, over the defaults from the method. */
  policy?: { confirm?: boolean; targets?: Target[] };
  /** Called as operations are turned into tools. */
  onProgress?: (done: number, total: number) => void;
}

/** One operation and the tool it becomes. */
export interface PlannedOperation {
  method: Method;
  path: string;
  operationId?: string;
  summary?: string;
  toolName: string;
  tags: string[];
  effects: "read" | "write" | "destructive";
  confirm: boolean;
  spec: ToolSpecInput & { binding: OpenApiBinding };
}

/** A security scheme of the document, and which source auth supplies it. */
export interface SecuritySchemeSummary {
  name: string;
  type: string;
  /** The auth kind to configure for it, or null when the console cannot supply it (cookies, mutual TLS). */
  supply: { kind: OpenApiAuth["kind"]; name: string; note?: string } | null;
}

export interface OpenApiPlan {
  title: string;
  version: string;
  openapi: string;
  operations: PlannedOperation[];
  securitySchemes: SecuritySchemeSummary[];
  /** Distinct base URLs the tools call (empty strings are operations with no usable server URL). */
  baseUrls: string[];
  warnings: string[];
}

/**
 * Turn a loaded document into one tool per operation, without registering anything.
 * Throws OpenApiDocumentError (broken or remote $ref, no operations) or OpenApiOptionsError.
 */
export function planOpenApiTools(loaded: LoadedDocument, options: OpenApiPlanOptions = {}): OpenApiPlan {
  const { document } = loaded;
  const is30 = String(document.openapi).startsWith("3.0");
  const converter = new SchemaConverter(document, is30);
  const warnings: string[] = [];
  const prefix = options.prefix ?? "";
  if (prefix && !/^[A-Za-z_][A-Za-z0-9_-]{0,31}$/.test(prefix))
    throw new OpenApiOptionsError(`The name prefix "${prefix}" must match ^[A-Za-z_][A-Za-z0-9_-]{0,31}$`);
  if (options.baseUrl !== undefined && !/^https?:\/\//i.test(options.baseUrl))
    throw new OpenApiOptionsError(`The base URL "${options.baseUrl}" must start with http:// or https://`);

  const schemes = securitySchemes(document);
  const authParams = new Set(schemes.filter((s) => s.in).map((s) => `${s.in}:${s.paramName!.toLowerCase()}`));
  authParams.add("header:authorization");
  if (options.auth?.kind === "header") authParams.add(`header:${options.auth.name.toLowerCase()}`);
  if (options.auth?.kind === "query") authParams.add(`query:${options.auth.name.toLowerCase()}`);

  assertPathTemplates(document);
  const all = listOperations(document);
  const selected = filterOperations(all, options.operations ?? {});
  const taken = new Set<string>();
  const operations: PlannedOperation[] = [];
  const info = isJsonObject(document.info) ? document.info : {};
  let done = 0;
  for (const entry of selected) {
    const where = `${entry.method.toUpperCase()} ${entry.path}`;
    const planned = planOperation(entry, { converter, options, authParams, loaded, warnings, where, prefix, taken });
    if (planned) {
      taken.add(planned.toolName);
      operations.push(planned);
    }
    done++;
    if (options.onProgress && (done % 50 === 0 || done === selected.length)) options.onProgress(done, selected.length);
  }
  if (!operations.length) {
    throw new OpenApiDocumentError(
      all.length ? "No operation of the document can become a tool" : "The document has no operations",
      warnings,
    );
  }
  return {
    title: typeof info.title === "string" ? info.title : "OpenAPI",
    version: typeof info.version === "string" ? info.version : "",
    openapi: String(document.openapi),
    operations,
    securitySchemes: schemes.map(({ name, type, supply }) => ({ name, type, supply })),
    baseUrls: [...new Set(operations.map((o) => o.spec.binding.baseUrl))],
    warnings,
  };
}

interface OperationEntry {
  method: Method;
  path: string;
  operation: Record<string, unknown>;
  pathItem: Record<string, unknown>;
}

/**
 * Refuse path templates that could place a call anywhere but under its server's path: each must
 * start with "/", hold no "\\" (which URLs read as "/") and no "." or ".." segment. The full
 * validator refuses the first kind too, but it does not run on every document, and this is what
 * keeps a template such as ":{port}/x" from reaching the URL's authority.
 */
function assertPathTemplates(document: Record<string, unknown>): void {
  const bad = Object.keys(document.paths as Record<string, unknown>).filter(
    (path) => !path.startsWith("/") || path.includes("\\") || path.split("/").some(isDotSegment),
  );
  if (bad.length)
    throw new OpenApiDocumentError(
      'Some paths are not paths under the server: each must start with "/" and hold no "\\", "." or ".." segment',
      bad.slice(0, 10).map((path) => `paths: "${path}"`),
    );
}

function listOperations(document: Record<string, unknown>): OperationEntry[] {
  const out: OperationEntry[] = [];
  for (const [path, rawItem] of Object.entries(document.paths as Record<string, unknown>)) {
    if (!isJsonObject(rawItem)) continue;
    for (const method of METHODS) {
      const operation = rawItem[method];
      if (isJsonObject(operation)) out.push({ method, path, operation, pathItem: rawItem });
    }
  }
  return out;
}

function filterOperations(all: OperationEntry[], filter: OperationFilter): OperationEntry[] {
  if (filter.operationIds?.length) {
    const known = new Set(all.map((e) => e.operation.operationId).filter((id): id is string => typeof id === "string"));
    const unknown = filter.operationIds.filter((id) => !known.has(id));
    if (unknown.length) throw new OpenApiOptionsError(`Unknown operationId${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`);
  }
  return all.filter(({ operation, path }) => {
    if (filter.tags?.length) {
      const tags = Array.isArray(operation.tags) ? operation.tags : [];
      if (!filter.tags.some((t) => tags.includes(t))) return false;
    }
    if (filter.paths?.length && !filter.paths.some((p) => (p.endsWith("*") ? path.startsWith(p.slice(0, -1)) : path === p))) return false;
    if (filter.operationIds?.length && !filter.operationIds.includes(operation.operationId as string)) return false;
    return true;
  });
}

interface PlanContext {
  converter: SchemaConverter;
  options: OpenApiPlanOptions;
  authParams: Set<string>;
  loaded: LoadedDocument;
  warnings: string[];
  where: string;
  prefix: string;
  taken: Set<string>;
}

function planOperation({ method, path, operation, pathItem }: OperationEntry, ctx: PlanContext): PlannedOperation | undefined {
  const { converter, options, warnings, where } = ctx;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const defs: Record<string, unknown> = {};
  const parameters: ParameterBinding[] = [];

  const merged = new Map<string, Record<string, unknown>>();
  for (const raw of [...asArray(pathItem.parameters), ...asArray(operation.parameters)]) {
    const param = converter.deref(raw, where);
    if (!isJsonObject(param) || typeof param.name !== "string" || typeof param.in !== "string") continue;
    merged.set(`${param.in}:${param.name}`, param);
  }
  for (const param of merged.values()) {
    const location = param.in as ParameterBinding["in"];
    const name = param.name as string;
    if (!["path", "query", "header", "cookie"].includes(location)) continue;
    const lower = name.toLowerCase();
    if (ctx.authParams.has(`${location}:${lower}`)) continue; // the source's auth supplies it
    if (location === "header" && (lower === "content-type" || lower === "accept")) continue;
    let schemaSource: unknown = param.schema;
    let json = false;
    if (schemaSource === undefined && isJsonObject(param.content)) {
      const media = Object.entries(param.content).find(([type]) => /json/i.test(type));
      schemaSource = media && isJsonObject(media[1]) ? media[1].schema : undefined;
      json = true;
    }
    const converted = converter.convert(schemaSource ?? { type: "string" }, "input", where);
    Object.assign(defs, converted.defs);
    const schema: JsonSchema = { ...converted.schema };
    if (typeof param.description === "string" && param.description) schema.description = param.description;
    if (param.deprecated === true) schema.deprecated = true;
    let property = propertyName(name);
    if (Object.hasOwn(properties, property)) property = propertyName(`${location}_${name}`);
    properties[property] = schema;
    if (param.required === true || location === "path") required.push(property);
    parameters.push({
      name,
      in: location,
      property,
      ...(typeof param.style === "string" && { style: param.style }),
      ...(typeof param.explode === "boolean" && { explode: param.explode }),
      ...(json && { json: true }),
    });
  }

  let body: OpenApiBinding["body"];
  if (operation.requestBody !== undefined) {
    const requestBody = converter.deref(operation.requestBody, where);
    const content = isJsonObject(requestBody.content) ? requestBody.content : {};
    const mediaType = BODY_TYPES.map((pattern) => Object.keys(content).find((t) => pattern.test(t))).find(Boolean);
    if (!mediaType) {
      const types = Object.keys(content).join(", ") || "none";
      if (requestBody.required === true) {
        warnings.push(`${where} skipped: its request body (${types}) cannot be sent (JSON, form and text bodies can)`);
        return undefined;
      }
      warnings.push(`${where}: optional request body (${types}) left out`);
    } else {
      const media = isJsonObject(content[mediaType]) ? (content[mediaType] as Record<string, unknown>) : {};
      const fallback = /^text\//i.test(mediaType) ? { type: "string" } : {};
      const converted = converter.convert(media.schema ?? fallback, "input", where);
      Object.assign(defs, converted.defs);
      const schema: JsonSchema = { ...converted.schema };
      if (typeof requestBody.description === "string" && requestBody.description && schema.description === undefined)
        schema.description = requestBody.description;
      const property = Object.hasOwn(properties, "body") ? "request_body" : "body";
      properties[property] = schema;
      if (requestBody.required === true) required.push(property);
      body = { property, contentType: mediaType };
    }
  }

  const fullInput: JsonSchema = { type: "object", properties, ...(required.length && { required }), additionalProperties: false };
  if (Object.keys(defs).length) fullInput.$defs = defs;
  const inputSchema = checkablePatterns(fullInput, "inputSchema", where, warnings);
  const fullOutput = responseSchema(operation, converter, where, warnings);
  const outputSchema = fullOutput && checkablePatterns(fullOutput, "outputSchema", where, warnings);

  const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined;
  const toolName = uniqueToolName(operationToolName(ctx.prefix, method, path, operationId), method, path, ctx.taken);
  const summary = typeof operation.summary === "string" ? operation.summary.trim() : "";
  const details = typeof operation.description === "string" ? operation.description.trim() : "";
  let description =
    [summary, details && details !== summary ? details : ""].filter(Boolean).join("\n\n") || `${method.toUpperCase()} ${path}`;
  if (description.length > DESCRIPTION_MAX) description = `${description.slice(0, DESCRIPTION_MAX - 1)}…`;
  const tags = (Array.isArray(operation.tags) ? operation.tags : [])
    .filter((t): t is string => typeof t === "string")
    .map((t) => t.trim().slice(0, 64))
    .filter(Boolean);

  const readOnly = method === "get" || method === "head";
  const effects = method === "delete" ? "destructive" : readOnly ? "read" : "write";
  const idempotent = readOnly || method === "put" || method === "delete";
  const confirm = options.policy?.confirm ?? method === "delete";
  const timeoutMs = options.timeoutMs ?? 30_000;
  const baseUrl = options.baseUrl ?? serverUrl(operation, pathItem, ctx.loaded);
  if (!baseUrl) warnings.push(`${where}: no absolute server URL; pass a base URL`);
  if (operation.deprecated === true) warnings.push(`${where} is deprecated`);

  const spec: PlannedOperation["spec"] = {
    name: toolName,
    title: (summary || operationId || `${method.toUpperCase()} ${path}`).slice(0, 200),
    description,
    inputSchema,
    ...(outputSchema && { outputSchema }),
    kind: "openapi",
    policy: {
      effects,
      idempotent,
      confirm,
      openWorld: true,
      timeoutMs,
      retries: options.retries ?? 2,
      tags: [...new Set(["openapi", ...tags])].slice(0, 32),
      ...(options.policy?.targets && { targets: options.policy.targets }),
    },
    binding: {
      method,
      path,
      baseUrl: baseUrl ?? "",
      parameters,
      ...(body && { body }),
      timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? 5 * 1024 * 1024,
    },
  };
  return { method, path, operationId, summary: summary || undefined, toolName, tags, effects, confirm, spec };
}

/** `schema` with the patterns the console cannot run dropped, each named in a warning. */
function checkablePatterns(schema: JsonSchema, label: string, where: string, warnings: string[]): JsonSchema {
  const { schema: kept, dropped } = dropUnsupportedPatterns(schema);
  for (const { path, reason } of dropped)
    warnings.push(`${where}: ${label}${path} ${reason}; the console does not check it (the API still does)`);
  return kept;
}

/** The schema of the first 2xx JSON response, when every 2xx answer is JSON (else a bodiless 2xx would fail the check). */
function responseSchema(
  operation: Record<string, unknown>,
  converter: SchemaConverter,
  where: string,
  warnings: string[],
): JsonSchema | undefined {
  const responses = isJsonObject(operation.responses) ? operation.responses : {};
  const schemas = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort()
    .map((code) => {
      const response = converter.deref(responses[code], where);
      const content = isJsonObject(response.content) ? response.content : {};
      const mediaType = Object.keys(content).find((t) => /^application\/(json|[^;]*\+json)/i.test(t));
      const media = mediaType && isJsonObject(content[mediaType]) ? (content[mediaType] as Record<string, unknown>) : undefined;
      return media?.schema;
    });
  const first = schemas[0];
  if (first === undefined) return undefined;
  if (schemas.some((s) => s === undefined)) {
    warnings.push(`${where}: some 2xx answers are not JSON, so the output is not checked`);
    return undefined;
  }
  const converted = converter.convert(first, "output", where);
  return { ...converted.schema, ...(Object.keys(converted.defs).length && { $defs: converted.defs }) };
}

function serverUrl(operation: Record<string, unknown>, pathItem: Record<string, unknown>, loaded: LoadedDocument): string | undefined {
  const servers = [operation.servers, pathItem.servers, loaded.document.servers].find((s) => Array.isArray(s) && s.length) as
    unknown[] | undefined;
  const server = servers?.[0];
  let url = isJsonObject(server) && typeof server.url === "string" ? server.url : "/";
  const variables = isJsonObject(server) && isJsonObject(server.variables) ? server.variables : {};
  // Server variables take their document defaults, fixed at import: call arguments never fill
  // them, so a call cannot choose its host or port. A variable without a default leaves no URL.
  let unresolved = false;
  url = url.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const variable = variables[name];
    if (isJsonObject(variable) && variable.default !== undefined) return String(variable.default);
    unresolved = true;
    return "";
  });
  if (unresolved || url.includes("{") || url.includes("}")) return undefined;
  try {
    return new URL(url, loaded.url).toString().replace(/\/$/, "");
  } catch {
    return undefined;
  }
}

interface SchemeEntry extends SecuritySchemeSummary {
  in?: string;
  paramName?: string;
}

function securitySchemes(document: Record<string, unknown>): SchemeEntry[] {
  const components = isJsonObject(document.components) ? document.components : {};
  const schemes = isJsonObject(components.securitySchemes) ? components.securitySchemes : {};
  return Object.entries(schemes).flatMap(([name, raw]): SchemeEntry[] => {
    if (!isJsonObject(raw)) return [];
    const type = String(raw.type);
    if (type === "apiKey" && typeof raw.name === "string") {
      const location = String(raw.in);
      const supply =
        location === "header"
          ? { kind: "header" as const, name: raw.name }
          : location === "query"
            ? { kind: "query" as const, name: raw.name }
            : null;
      return [{ name, type, in: location, paramName: raw.name, supply }];
    }
    if (type === "http" && String(raw.scheme).toLowerCase() === "bearer")
      return [{ name, type, supply: { kind: "bearer", name: "Authorization" } }];
    if (type === "http" && String(raw.scheme).toLowerCase() === "basic")
      return [{ name, type, supply: { kind: "header", name: "Authorization", note: 'value "Basic <base64 of user:password>"' } }];
    if (type === "oauth2" || type === "openIdConnect")
      return [{ name, type, supply: { kind: "bearer", name: "Authorization", note: "an access token you obtained" } }];
    return [{ name, type, supply: null }];
  });
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A property name every model API accepts (Gemini's legacy schema is the strictest). */
function propertyName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 64);
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`.slice(0, 64);
}
