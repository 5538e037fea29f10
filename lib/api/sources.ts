import { z } from "zod";
import { DomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { readJsonBody, routeParam } from "../http/request-input";
import { json, jsonWithList } from "../http/respond";
import type { Principal } from "../auth";
import {
  importOpenApi,
  OpenApiOptionsError,
  previewOpenApi,
  refreshOpenApiSource,
  type OpenApiImportOptions,
  type OpenApiInput,
} from "../integrations/openapi";
import { parseAllowance } from "../net/address-policy";
import { TimeoutMs, type RegisteredTool } from "../tools/spec";
import { McpSecrets, McpTarget } from "../integrations/mcp/client-target";
import { importMcp, refreshMcpSource, testMcpServer, type McpImportInput } from "../integrations/mcp/import-mcp";
import type { OpenApiAuth } from "../integrations/openapi/auth";
import { importA2A, refreshA2ASource, testA2AAgent, type A2AImportInput } from "../integrations/a2a/import-a2a";
import { addAguiSource, forgetAguiSource, refreshAguiSource, testAguiEndpoint, type AguiSourceInput } from "../integrations/agui-remote";
import type { Services } from "../services";
import { SourceNotFound } from "../sources/errors";
import { removeSource } from "../sources/remove-source";
import type { SourceImportAnswer } from "./contracts";
import { toolSummary } from "./tool-summary";

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
    if (auth.kind !== "bearer" && !auth.name)
      ctx.addIssue({
        code: "custom",
        path: ["name"],
        message: `A ${auth.kind} credential needs the name of its ${auth.kind === "header" ? "header" : "query parameter"}`,
      });
  });

/** What a source may reach although private (CIDR ranges, addresses, host names): admins only. */
const Allowance = z.array(z.string().trim().min(1).max(253)).max(50);

/** A bearer token a source's requests carry (`Authorization: Bearer …`), stored as its secret. */
const BearerToken = z
  .string()
  .trim()
  .min(1)
  .max(8192)
  .regex(/^[^\r\n\0]*$/, "holds a line break");

/** The headers that carry a body's credentials: its secret headers, and its bearer token as Authorization. */
function credentialHeaders(body: { bearer?: string; secrets?: { headers?: Record<string, string> } }): Record<string, string> {
  return { ...body.secrets?.headers, ...(body.bearer && { Authorization: `Bearer ${body.bearer}` }) };
}

/**
 * The lower-cased names of a body's secret headers; an Authorization header there and a bearer
 * token both is an issue (one credential, one place).
 */
function secretHeaderNames(body: { bearer?: string; secrets?: { headers?: Record<string, string> } }, ctx: z.RefinementCtx): string[] {
  const names = Object.keys(body.secrets?.headers ?? {}).map((name) => name.toLowerCase());
  if (body.bearer && names.includes("authorization"))
    ctx.addIssue({
      code: "custom",
      path: ["bearer"],
      message: "Send the Authorization header either as bearer or in secrets.headers, not both",
    });
  return names;
}

const ImportOptions = z
  .object({
    operations: z.object({ tags: names.optional(), paths: names.optional(), operationIds: names.optional() }).strict().optional(),
    prefix: z.string().trim().max(32).optional(),
    baseUrl: z.string().trim().max(2000).optional(),
    auth: AuthInput.optional(),
    allow: Allowance.optional(),
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
    if (body.options.auth && !body.options.auth.secret)
      ctx.addIssue({ code: "custom", path: ["options", "auth", "secret"], message: "The credential's secret is required" });
  });

type DocumentBody = z.output<typeof PreviewBody>;

/** Connection bodies are small: a URL or a command line, headers and environment variables. */
const MAX_MCP_BODY_BYTES = 256 * 1024;

/** What an MCP server's or an A2A agent's tools are registered with: a name prefix, private addresses an admin allows, the calls' time limit. */
const ConnectionOptions = z
  .object({
    prefix: z.string().trim().max(32).optional(),
    allow: Allowance.optional(),
    timeoutMs: TimeoutMs.optional(),
  })
  .strict()
  .default({});

const McpBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    target: McpTarget,
    /** Headers (HTTP) or environment variables (stdio) stored as the source's secret: never listed or logged. */
    secrets: McpSecrets.optional(),
    /** A bearer token for an HTTP server: sent as `Authorization: Bearer …`, stored as a secret. */
    bearer: BearerToken.optional(),
    options: ConnectionOptions,
  })
  .strict()
  .superRefine((body, ctx) => {
    const { target, secrets } = body;
    if (target.transport === "stdio") {
      if (secrets?.headers) ctx.addIssue({ code: "custom", path: ["secrets", "headers"], message: "A stdio server takes no headers" });
      if (body.bearer)
        ctx.addIssue({ code: "custom", path: ["bearer"], message: "A stdio server takes no bearer token (pass it in secrets.env)" });
      if (body.options.allow?.length)
        ctx.addIssue({ code: "custom", path: ["options", "allow"], message: "A stdio server makes no connection the console guards" });
      if (target.cwd && !target.cwd.startsWith("/"))
        ctx.addIssue({ code: "custom", path: ["target", "cwd"], message: "must be an absolute path" });
      return;
    }
    if (secrets?.env) ctx.addIssue({ code: "custom", path: ["secrets", "env"], message: "An HTTP server takes no environment variables" });
    const shown = Object.keys(target.headers ?? {}).map((name) => name.toLowerCase());
    if (shown.includes("authorization") || shown.includes("cookie"))
      ctx.addIssue({
        code: "custom",
        path: ["target", "headers"],
        message: "Authorization and Cookie would be shown in listings: send them as secrets.headers (or bearer)",
      });
    const secret = secretHeaderNames(body, ctx);
    const twice = shown.find((name) => secret.includes(name));
    if (twice) ctx.addIssue({ code: "custom", path: ["secrets", "headers"], message: `${twice} is also in target.headers` });
  });

/** An A2A agent: its base URL and the credential its requests carry (to its origin only). */
const A2ABody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    url: z.string().trim().min(1).max(2000),
    /** Headers stored as the source's secret and sent only to the agent's origin: never listed or logged. */
    secrets: McpSecrets.pick({ headers: true }).strict().optional(),
    /** A bearer token: sent as `Authorization: Bearer …` to the agent's origin, stored as a secret. */
    bearer: BearerToken.optional(),
    options: ConnectionOptions,
  })
  .strict()
  .superRefine((body, ctx) => {
    const secret = secretHeaderNames(body, ctx);
    const reserved = secret.find((name) => name === "a2a-version" || name === "a2a-extensions");
    if (reserved) ctx.addIssue({ code: "custom", path: ["secrets", "headers"], message: `${reserved} is set by the A2A client` });
  });

/**
 * A remote AG-UI agent: its endpoint URL and the credential its runs carry. The name becomes the
 * agent's (`remote:<name>`), so it is kept to what reads well in a URL path.
 */
const AguiBody = z
  .object({
    name: z
      .string()
      .trim()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
        "use 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit",
      ),
    url: z.string().trim().min(1).max(2000),
    description: z.string().trim().max(500).optional(),
    /** Headers stored as the source's secret and sent with every run: never listed or logged. */
    secrets: McpSecrets.pick({ headers: true }).strict().optional(),
    /** A bearer token: sent as `Authorization: Bearer …`, stored as a secret. */
    bearer: BearerToken.optional(),
    options: z
      .object({
        allow: Allowance.optional(),
      })
      .strict()
      .default({}),
  })
  .strict()
  .superRefine((body, ctx) => void secretHeaderNames(body, ctx));

/**
 * Imported sources over REST (scope "tools"): GET /api/sources (never the secret),
 * POST /api/sources/openapi/preview, POST /api/sources/openapi (import, all or nothing),
 * POST /api/sources/mcp/test (connect and list, registering nothing), POST /api/sources/mcp (import),
 * POST /api/sources/a2a/test (read an agent's card, registering nothing), POST /api/sources/a2a (import),
 * POST /api/sources/agui/test (check an AG-UI endpoint, registering nothing), POST /api/sources/agui (add a remote agent),
 * POST /api/sources/[id]/refresh and DELETE /api/sources/[id] (with its tools).
 */
export function sourcesApi(
  services: Pick<Services, "registry" | "sources" | "logger" | "outbound" | "mcp" | "a2aAgents" | "agents" | "approvals">,
  protect: Protect,
) {
  const { registry, sources, logger, outbound, mcp, a2aAgents } = services;
  const aguiDeps = { sources, logger, outbound, agents: services.agents, approvals: services.approvals };
  const deps = { registry, sources, logger, outbound, mcp, a2aAgents };
  type SourceImportDeps = typeof deps;

  /**
   * The guard an import or preview fetches through: the console's, widened by the request's
   * allowance when an admin sends one. Throws forbidden for anyone else, invalid_options for an
   * entry that is no range, address or host name.
   */
  const guardFor = (allow: string[] | undefined, caller: Principal) => {
    if (!allow?.length) return outbound;
    if (caller.role !== "admin")
      throw new DomainError("forbidden", "Only an admin may let a source reach private addresses (options.allow)");
    try {
      parseAllowance(allow);
    } catch (error) {
      throw new OpenApiOptionsError(`options.allow has ${(error as Error).message}`);
    }
    return outbound.widen(allow);
  };

  /**
   * `warnings`, plus one naming the tools a test or preview found whose names are registered
   * already: an import is all or nothing, so it would fail on them.
   */
  const withTakenNames = (warnings: string[], names: string[]): string[] => {
    const taken = names.filter((name) => registry.get(name));
    if (!taken.length) return warnings;
    const one = taken.length === 1;
    const listed = `${taken.slice(0, 5).join(", ")}${taken.length > 5 ? ", …" : ""}`;
    return [
      ...warnings,
      `${one ? "A tool" : `${taken.length} tools`} with ${one ? "this name is" : "these names are"} already registered, so the import would fail: ${listed}. Set a name prefix.`,
    ];
  };

  const list = protect("tools", async () => json({ items: await sources.list() }));

  const preview = protect("tools", async (request, caller) => {
    const body = await readJsonBody(request, PreviewBody, MAX_IMPORT_BODY_BYTES);
    const guard = guardFor(body.options.allow, caller);
    const result = await previewOpenApi(documentOf(body), { ...importOptions(body.options, true), outbound: guard });
    return json({
      ...result,
      warnings: withTakenNames(
        result.warnings,
        result.operations.map((entry) => entry.toolName),
      ),
    });
  });

  const importDocument = protect("tools", async (request, caller) => {
    const body = await readJsonBody(request, ImportBody, MAX_IMPORT_BODY_BYTES);
    const guard = guardFor(body.options.allow, caller);
    const result = await importOpenApi({ ...deps, outbound: guard }, documentOf(body), {
      ...importOptions(body.options, false),
      name: body.name,
    });
    logger.info("openapi source imported over REST", { source: result.source.id, by: caller.id });
    return importAnswer(result, { status: 201 });
  });

  /**
   * An MCP body as import input, with the guard its connection goes through. A stdio server runs
   * a program on the console's machine: only an admin may name one (403 otherwise, before anything runs).
   */
  const mcpInput = (body: z.output<typeof McpBody>, caller: Principal): { input: McpImportInput; guard: typeof outbound } => {
    if (body.target.transport === "stdio" && caller.role !== "admin")
      throw new DomainError("forbidden", "Only an admin may add an MCP server that runs a program on the console's machine (stdio)");
    const guard = guardFor(body.options.allow, caller);
    const headers = credentialHeaders(body);
    const secrets = { ...(Object.keys(headers).length && { headers }), ...(body.secrets?.env && { env: body.secrets.env }) };
    const { prefix, allow, timeoutMs } = body.options;
    return {
      input: {
        target: body.target,
        ...(Object.keys(secrets).length && { secrets }),
        ...(body.name && { name: body.name }),
        ...(prefix && { prefix }),
        ...(allow?.length && { allow }),
        ...(timeoutMs && { timeoutMs }),
      },
      guard,
    };
  };

  const mcpHandlers = connectHandlers(McpBody, mcpInput, testMcpServer, importMcp, "mcp");
  /** An A2A body as import input, with the guard its requests go through. */
  const a2aInput = (body: z.output<typeof A2ABody>, caller: Principal): { input: A2AImportInput; guard: typeof outbound } => {
    const guard = guardFor(body.options.allow, caller);
    const headers = credentialHeaders(body);
    const { prefix, allow, timeoutMs } = body.options;
    return {
      input: {
        url: body.url,
        ...(Object.keys(headers).length && { secrets: { headers } }),
        ...(body.name && { name: body.name }),
        ...(prefix && { prefix }),
        ...(allow?.length && { allow }),
        ...(timeoutMs && { timeoutMs }),
      },
      guard,
    };
  };

  const a2aHandlers = connectHandlers(A2ABody, a2aInput, testA2AAgent, importA2A, "a2a");

  /**
   * The test and import handlers of a source kind that brings tools (MCP servers, A2A agents): the
   * body read with `schema`, turned into input with its guard, then tested (registering nothing,
   * names another source holds flagged) or imported (201).
   */
  function connectHandlers<S extends z.ZodType, I, T extends { tools: Array<{ toolName: string }>; warnings: string[] }>(
    schema: S,
    toInput: (body: z.output<S>, caller: Principal) => { input: I; guard: typeof outbound },
    test: (importDeps: SourceImportDeps, input: I) => Promise<T>,
    add: (importDeps: SourceImportDeps, input: I) => Promise<Parameters<typeof importAnswer>[0]>,
    kind: string,
  ) {
    return {
      test: protect("tools", async (request, caller) => {
        const { input, guard } = toInput(await readJsonBody(request, schema, MAX_MCP_BODY_BYTES), caller);
        const result = await test({ ...deps, outbound: guard }, input);
        return json({
          ...result,
          warnings: withTakenNames(
            result.warnings,
            result.tools.map((entry) => entry.toolName),
          ),
        });
      }),
      add: protect("tools", async (request, caller) => {
        const { input, guard } = toInput(await readJsonBody(request, schema, MAX_MCP_BODY_BYTES), caller);
        const result = await add({ ...deps, outbound: guard }, input);
        logger.info(`${kind} source imported over REST`, { source: result.source.id, by: caller.id });
        return importAnswer(result, { status: 201 });
      }),
    };
  }

  // ---- remote AG-UI agents: a source that registers an agent, not tools ----

  /** An AG-UI body as the source's input, with the guard its requests go through. */
  const aguiInput = (body: z.output<typeof AguiBody>, caller: Principal): { input: AguiSourceInput; guard: typeof outbound } => {
    const guard = guardFor(body.options.allow, caller);
    const headers = credentialHeaders(body);
    return {
      input: {
        name: body.name,
        url: body.url,
        ...(Object.keys(headers).length && { headers }),
        ...(body.description && { description: body.description }),
        ...(body.options.allow?.length && { allow: body.options.allow }),
      },
      guard,
    };
  };

  const testAgui = protect("tools", async (request, caller) => {
    const body = await readJsonBody(request, AguiBody, MAX_MCP_BODY_BYTES);
    const { input, guard } = aguiInput(body, caller);
    return json(await testAguiEndpoint(guard, input));
  });

  const addAgui = protect("tools", async (request, caller) => {
    const body = await readJsonBody(request, AguiBody, MAX_MCP_BODY_BYTES);
    const { input, guard } = aguiInput(body, caller);
    const { source, agent, test } = await addAguiSource(aguiDeps, guard, input);
    logger.info("remote AG-UI agent added over REST", { source: source.id, agent: agent.name, by: caller.id });
    return json({ source, agent, test }, { status: 201 });
  });

  const refresh = protect("tools", async (_request, _caller, context) => {
    const id = await routeParam(context, "id");
    const source = await sources.get(id);
    if (!source) throw new SourceNotFound(id);
    if (source.kind === "mcp") {
      const result = await refreshMcpSource({ ...deps, outbound: outbound.forSource(source.options) }, id);
      return importAnswer(result);
    }
    if (source.kind === "a2a") {
      const result = await refreshA2ASource({ ...deps, outbound: outbound.forSource(source.options) }, id);
      return importAnswer(result);
    }
    if (source.kind === "agui") {
      const { source: refreshed, test } = await refreshAguiSource(aguiDeps, id);
      return json({ source: refreshed, tools: [], warnings: test.warnings, test });
    }
    if (source.kind !== "openapi") throw new DomainError("not_refreshable", `A ${source.kind} source cannot be refreshed here`);
    // The allowance an admin gave at import holds for its refreshes too.
    const result = await refreshOpenApiSource({ ...deps, outbound: outbound.forSource(source.options) }, id);
    return importAnswer(result);
  });

  const remove = protect("tools", async (_request, caller, context) => {
    const id = await routeParam(context, "id");
    const source = await sources.get(id);
    const tools = await removeSource(deps, id);
    if (source?.kind === "agui") await forgetAguiSource(aguiDeps, source, caller.id);
    logger.info("source removed over REST", { source: id, tools, by: caller.id });
    return json({ removed: id, tools });
  });

  return {
    list,
    preview,
    importDocument,
    testMcp: mcpHandlers.test,
    importMcpServer: mcpHandlers.add,
    testA2A: a2aHandlers.test,
    importA2AAgent: a2aHandlers.add,
    testAgui,
    addAgui,
    refresh,
    remove,
  };
}

function documentOf(body: DocumentBody): OpenApiInput {
  if (body.url !== undefined) return { url: body.url };
  return { text: body.text!, ...(body.filename && { filename: body.filename }) };
}

function importOptions(options: DocumentBody["options"], preview: boolean): OpenApiImportOptions {
  const { auth, operations, prefix, baseUrl, allow } = options;
  return {
    ...(operations && { operations }),
    ...(allow?.length && { allow }),
    ...(prefix && { prefix }),
    ...(baseUrl && { baseUrl }),
    // A preview only needs where the credential goes (that parameter is left out of the tools), not the secret.
    ...(auth && { auth: toAuth(auth, preview ? auth.secret || "-" : auth.secret!) }),
  };
}

function toAuth(auth: { kind: OpenApiAuth["kind"]; name?: string }, secret: string): OpenApiAuth {
  return auth.kind === "bearer" ? { kind: "bearer", token: secret } : { kind: auth.kind, name: auth.name!, value: secret };
}

/**
 * The answer to an import or a refresh (a SourceImportAnswer): the source, every tool (thousands, at
 * times, written a slice at a time within the event loop's turn budget) and the warnings.
 */
function importAnswer(
  result: { source: SourceImportAnswer["source"]; tools: RegisteredTool[]; warnings: string[] },
  init?: ResponseInit,
): Response {
  const head: Omit<SourceImportAnswer, "tools"> = { source: result.source, warnings: result.warnings };
  return jsonWithList(head, "tools", result.tools, toolSummary, init);
}
