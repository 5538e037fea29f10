import { z } from "zod";
import { InvalidCursor } from "../db/cursor";
import { exportToolDefinitions } from "../integrations/tool-exports";
import type { Services } from "../services";
import { changeToolSettings } from "../tools/change-settings";
import { APPROVAL_POLICIES, EFFECTS, TARGETS, type RegisteredTool } from "../tools/spec";
import { authorize } from "./authorize";
import { readJsonBody, readQuery, routeParam, type RouteContext } from "./request-input";
import { errorResponse, json } from "./respond";
import { toolSummary } from "./tool-summary";

export type ToolRoutesDeps = Pick<Services, "registry" | "database" | "access">;

const ListQuery = z
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
    limit: z.coerce.number().int().min(1).max(1000).optional(),
  })
  .strict();

/** What PATCH /api/tools/[name] may change; at least one field. */
export const ToolSettingsPatch = z
  .object({
    approval: z.enum(APPROVAL_POLICIES).optional(),
    targets: z.array(z.enum(TARGETS)).max(TARGETS.length * 2).optional(),
    enabled: z.boolean().optional(),
    timeoutMs: z.number().int().min(1).max(15 * 60_000).optional(),
    retries: z.number().int().min(0).max(10).optional(),
  })
  .strict()
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), { message: "Change at least one of approval, targets, enabled, timeoutMs, retries" });

/** A tool as its page shows it: the definition, what operators set, and whether calls ask first. */
function toolDetail(tool: RegisteredTool) {
  const { binding: _binding, ...rest } = tool;
  return { ...rest, needsApproval: toolSummary(tool).needsApproval };
}

/**
 * The tool registry over REST (scope "tools"): GET /api/tools (filtered, paged summaries),
 * GET, PATCH and DELETE /api/tools/[name], GET /api/tools/[name]/exports.
 */
export function toolRoutes(deps: ToolRoutesDeps) {
  const { registry, access } = deps;

  async function list(request: Request): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const query = readQuery(request, ListQuery);
    if (!query.ok) return query.response;
    const q = query.data;
    try {
      const page = registry.list({
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
      return json({ items: page.items.map(toolSummary), nextCursor: page.nextCursor ?? null, total: page.total });
    } catch (error) {
      if (error instanceof InvalidCursor) return errorResponse(400, "invalid_cursor", error.message);
      throw error;
    }
  }

  async function get(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const name = await routeParam(context, "name");
    const tool = registry.get(name);
    if (!tool) return notFound(name);
    return json({ tool: toolDetail(tool) });
  }

  async function update(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const name = await routeParam(context, "name");
    if (!registry.get(name)) return notFound(name);
    const body = await readJsonBody(request, ToolSettingsPatch, 64 * 1024);
    if (!body.ok) return body.response;
    const tool = changeToolSettings({ db: deps.database.db, registry }, name, body.data, caller.principal.id);
    return json({ tool: toolDetail(tool) });
  }

  async function remove(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const name = await routeParam(context, "name");
    if (!registry.remove(name)) return notFound(name);
    return json({ removed: name });
  }

  async function exports(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const name = await routeParam(context, "name");
    const tool = registry.get(name);
    if (!tool) return notFound(name);
    return json({ tool: name, exports: exportToolDefinitions(tool) });
  }

  return { list, get, update, remove, exports };
}

function notFound(name: string): Response {
  return errorResponse(404, "tool_not_found", `No tool named "${name}" is registered`);
}
