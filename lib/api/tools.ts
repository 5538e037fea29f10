import { z } from "zod";
import { DomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { readJsonBody, readQuery, routeParam, type RouteContext } from "../http/request-input";
import { json } from "../http/respond";
import { exportToolDefinitions } from "../integrations/tool-exports";
import type { Services } from "../services";
import type { ToolRegistry } from "../tools/registry";
import { EFFECTS, TARGETS, type RegisteredTool } from "../tools/spec";
import { ToolSettingsPatch, type ToolPage } from "./contracts";
import { queryLimit } from "./query-limit";
import { toolDetail, toolSummary } from "./tool-summary";

/** The query of GET /api/tools (and of the tools page's first page). */
export const ToolListQuery = z
  .object({
    text: z.string().max(500).optional(),
    source: z.string().max(200).optional(),
    kind: z.string().max(32).optional(),
    effects: z.enum(EFFECTS).optional(),
    /** "required": only tools that ask for approval; "none": only tools that never do. */
    approval: z.enum(["required", "none"]).optional(),
    target: z.enum(TARGETS).optional(),
    enabled: z.enum(["true", "false"]).optional(),
    cursor: z.string().max(500).optional(),
    limit: queryLimit(1000).optional(),
  })
  .strict();

/**
 * The tool registry over REST (scope "tools"): GET /api/tools (filtered, paged summaries),
 * GET, PATCH and DELETE /api/tools/[name], GET /api/tools/[name]/exports.
 */
export function toolsApi(services: Pick<Services, "registry">, protect: Protect) {
  const { registry } = services;

  /** The tool the route names. Throws tool_not_found. */
  const named = async (context?: RouteContext): Promise<RegisteredTool> => {
    const name = await routeParam(context, "name");
    return registry.get(name) ?? toolNotFound(name);
  };

  const list = protect("tools", async (request) => json(await listTools(registry, readQuery(request, ToolListQuery))));

  const get = protect("tools", async (_request, _caller, context) => json({ tool: toolDetail(await named(context)) }));

  const update = protect("tools", async (request, caller, context) => {
    const { name } = await named(context);
    const patch = await readJsonBody(request, ToolSettingsPatch, 64 * 1024);
    return json({ tool: toolDetail(await registry.changeSettings(name, patch, caller.id)) });
  });

  const remove = protect("tools", async (_request, _caller, context) => {
    const { name } = await named(context);
    await registry.remove(name);
    return json({ removed: name });
  });

  const exports = protect("tools", async (_request, _caller, context) => {
    const tool = await named(context);
    return json({ tool: tool.name, exports: exportToolDefinitions(tool) });
  });

  return { list, get, update, remove, exports };
}

/** Throws tool_not_found for a name the registry does not hold. */
export function toolNotFound(name: string): never {
  throw new DomainError("tool_not_found", `No tool named "${name}" is registered`);
}

/** A page of tool summaries for a parsed list query. Rejects with InvalidCursor. */
export async function listTools(registry: ToolRegistry, q: z.output<typeof ToolListQuery>): Promise<ToolPage> {
  const page = await registry.page({
    text: q.text,
    sourceId: q.source,
    kind: q.kind,
    effects: q.effects,
    needsApproval: q.approval === undefined ? undefined : q.approval === "required",
    target: q.target,
    enabled: q.enabled === undefined ? undefined : q.enabled === "true",
    cursor: q.cursor,
    limit: q.limit ?? 100,
  });
  return { items: page.items.map(toolSummary), nextCursor: page.nextCursor ?? null, total: page.total };
}
