import { z } from "zod";
import { EventQueue } from "../agents/event-queue";
import {
  APPROVAL_STATUSES,
  ApprovalAlreadyDecided,
  ApprovalDecisionInvalid,
  ApprovalExpired,
  ApprovalNotFound,
  decideApproval,
  type Approval,
  type ApprovalChange,
  type ApprovalStatus,
} from "../approvals";
import { InvalidCursor } from "../db/cursor";
import { jsonFrame, SSE_HEADERS, sseBody } from "../integrations/agui/sse";
import type { Services } from "../services";
import type { ToolRegistry } from "../tools/registry";
import { authorize } from "./authorize";
import { readJsonBody, routeParam, toIssues, type RouteContext } from "./request-input";
import { errorResponse, json } from "./respond";
import type { Handler } from "./route";

/** An approval as the API shows it: everything but the internal idempotency key. */
export type ApprovalView = Omit<Approval, "key" | "argsDigest"> & { toolTitle?: string; approvalPolicy?: string };


const Decision = z
  .object({
    approved: z.boolean(),
    reason: z.string().trim().max(2000).optional(),
    editedArgs: z.record(z.string(), z.unknown()).optional(),
    rememberForThread: z.boolean().optional(),
  })
  .strict();

const BulkDecision = z
  .object({
    ids: z.array(z.string().min(1).max(200)).min(1).max(200),
    approved: z.boolean(),
    reason: z.string().trim().max(2000).optional(),
  })
  .strict();

const ListQuery = z.object({
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").filter(Boolean) : undefined))
    .pipe(z.array(z.enum(APPROVAL_STATUSES as [ApprovalStatus, ...ApprovalStatus[]])).optional()),
  tool: z.string().max(100).optional(),
  surface: z.string().max(40).optional(),
  principal: z.string().max(200).optional(),
  threadId: z.string().max(200).optional(),
  q: z.string().max(200).optional(),
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/**
 * The approvals inbox API: list and read approvals, decide one or several, and a live SSE stream
 * of every change. Only operators (the local user, or a token with the "approvals" scope) may
 * use it: 401 without credentials, 403 for other callers.
 */
export function approvalsApi(services: Services) {
  const { approvals, registry, grants } = services;

  const view = (approval: Approval): ApprovalView => approvalView(approval, registry);

  /** Operators only: the approvals scope (the local user has every scope). */
  const operator = (request: Request) => authorize(request, services.access, "approvals");


  const id = (context?: RouteContext) => routeParam(context, "id");

  const list: Handler = async (request) => {
    const caller = operator(request);
    if (!caller.ok) return caller.response;
    const query = ListQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!query.success) return errorResponse(422, "invalid_query", "The query is not valid", toIssues(query.error));
    const { q, ...filter } = query.data;
    try {
      const page = approvals.list({ ...filter, text: q });
      return json({ items: page.items.map(view), nextCursor: page.nextCursor, pending: approvals.countPending() });
    } catch (error) {
      if (error instanceof InvalidCursor) return errorResponse(422, "invalid_cursor", error.message);
      throw error;
    }
  };

  const get: Handler = async (request, context) => {
    const caller = operator(request);
    if (!caller.ok) return caller.response;
    const approval = approvals.get(await id(context));
    if (!approval) return errorResponse(404, "approval_not_found", "No approval with this id");
    return json({ approval: view(approval), events: approvals.events(approval.id) });
  };

  const decide: Handler = async (request, context) => {
    const caller = operator(request);
    if (!caller.ok) return caller.response;
    const approvalId = await id(context);
    const body = await readJsonBody(request, Decision, 256 * 1024);
    if (!body.ok) return body.response;
    try {
      const approval = decideApproval({ approvals, grants, registry }, approvalId, { ...body.data, decidedBy: caller.principal.id });
      return json({ approval: view(approval) });
    } catch (error) {
      return decisionError(error) ?? Promise.reject(error);
    }
  };

  const decideMany: Handler = async (request) => {
    const caller = operator(request);
    if (!caller.ok) return caller.response;
    const body = await readJsonBody(request, BulkDecision, 256 * 1024);
    if (!body.ok) return body.response;
    const { ids, ...decision } = body.data;
    const results = [...new Set(ids)].map((approvalId) => {
      try {
        const approval = decideApproval({ approvals, grants, registry }, approvalId, { ...decision, decidedBy: caller.principal.id });
        return { id: approvalId, ok: true, status: approval.status };
      } catch (error) {
        const known = error instanceof ApprovalNotFound || error instanceof ApprovalAlreadyDecided || error instanceof ApprovalExpired || error instanceof ApprovalDecisionInvalid;
        if (!known) throw error;
        return { id: approvalId, ok: false, error: { code: error.kind, message: error.message } };
      }
    });
    return json({ results });
  };

  // Every open stream hears the same change: build its frame (and count what is pending) once.
  const frames = new WeakMap<ApprovalChange, string>();
  const frameOf = (change: ApprovalChange): string => {
    let frame = frames.get(change);
    if (!frame) {
      frame = jsonFrame({ type: change.type, approval: view(change.approval), pending: approvals.countPending() });
      frames.set(change, frame);
    }
    return frame;
  };

  /** GET /api/approvals/events: `data: {type, approval, pending}` for every change, as it happens. */
  const events: Handler = async (request) => {
    const caller = operator(request);
    if (!caller.ok) return caller.response;
    const threadId = new URL(request.url).searchParams.get("threadId") ?? undefined;
    const queue = new EventQueue<string>();
    queue.push(jsonFrame({ type: "hello", pending: approvals.countPending() }));
    const unsubscribe = approvals.onChange((change: ApprovalChange) => {
      if (threadId && change.approval.threadId !== threadId) return;
      queue.push(frameOf(change));
    });
    const stop = () => {
      unsubscribe();
      queue.close();
    };
    request.signal.addEventListener("abort", stop, { once: true });
    return new Response(sseBody(queue, { onCancel: stop }), { headers: SSE_HEADERS });
  };

  return { list, get, decide, decideMany, events, view };
}

/** An approval as the API and the inbox show it. */
export function approvalView(approval: Approval, registry: ToolRegistry): ApprovalView {
  const { key: _key, argsDigest: _digest, ...rest } = approval;
  const tool = registry.get(approval.tool);
  return { ...rest, ...(tool && { toolTitle: tool.title, approvalPolicy: tool.approval }) };
}

function decisionError(error: unknown): Response | undefined {
  if (error instanceof ApprovalNotFound) return errorResponse(404, error.kind, error.message);
  if (error instanceof ApprovalAlreadyDecided) return errorResponse(409, error.kind, error.message);
  if (error instanceof ApprovalExpired) return errorResponse(410, error.kind, error.message);
  if (error instanceof ApprovalDecisionInvalid) return errorResponse(422, error.kind, error.message, error.issues);
  return undefined;
}

