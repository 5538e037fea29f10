import { z } from "zod";
import { APPROVAL_STATUSES, ApprovalNotFound, decideApproval, type Approval, type ApprovalChange, type ApprovalStatus } from "../approvals";
import { DecisionPayload } from "../approvals/decision-payload";
import { isDomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { readJsonBody, readQuery, routeParam } from "../http/request-input";
import { json } from "../http/respond";
import { jsonFrame, SSE_HEADERS, sseBody } from "../http/sse";
import { queryLimit } from "./query-limit";
import type { Services } from "../services";
import { EventQueue } from "../streams/event-queue";
import type { ToolRegistry } from "../tools/registry";
import {
  BulkDecision,
  type ApprovalDetail,
  type ApprovalEventMessage,
  type ApprovalPage,
  type ApprovalView,
  type BulkDecisionAnswer,
} from "./contracts";

const DECISION_MAX_BYTES = 256 * 1024;

const ListQuery = z
  .object({
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
    limit: queryLimit(500).optional(),
  })
  .strict();

const EventsQuery = z.object({ threadId: z.string().min(1).max(200).optional() }).strict();

/**
 * The approvals inbox API (scope "approvals", which makes an operator): list and read approvals,
 * decide one or several, and a live SSE stream of every change.
 */
export function approvalsApi(services: Services, protect: Protect) {
  const { approvals, registry, grants } = services;
  const view = (approval: Approval): ApprovalView => approvalView(approval, registry);

  const list = protect("approvals", async (request) => {
    const { q, ...filter } = readQuery(request, ListQuery);
    const page = approvals.list({ ...filter, text: q });
    return json({ items: page.items.map(view), nextCursor: page.nextCursor, pending: approvals.countPending() } satisfies ApprovalPage);
  });

  const get = protect("approvals", async (request, _caller, context) => {
    const id = await routeParam(context, "id");
    const approval = approvals.get(id);
    if (!approval) throw new ApprovalNotFound(id);
    return json({ approval: view(approval), events: approvals.events(approval.id) } satisfies ApprovalDetail);
  });

  const decide = protect("approvals", async (request, caller, context) => {
    const id = await routeParam(context, "id");
    const decision = await readJsonBody(request, DecisionPayload, DECISION_MAX_BYTES);
    const approval = decideApproval({ approvals, grants, registry }, id, { ...decision, decidedBy: caller.id });
    return json({ approval: view(approval) });
  });

  const decideMany = protect("approvals", async (request, caller) => {
    const { ids, ...decision } = await readJsonBody(request, BulkDecision, DECISION_MAX_BYTES);
    const results = [...new Set(ids)].map((id): BulkDecisionAnswer["results"][number] => {
      try {
        return { id, ok: true, status: decideApproval({ approvals, grants, registry }, id, { ...decision, decidedBy: caller.id }).status };
      } catch (error) {
        // One refused decision does not stop the others; each says why it was refused.
        if (!isDomainError(error)) throw error;
        return { id, ok: false, error: { code: error.kind, message: error.message } };
      }
    });
    return json({ results } satisfies BulkDecisionAnswer);
  });

  // Every open stream hears the same change: build its frame (and count what is pending) once.
  const frames = new WeakMap<ApprovalChange, string>();
  const frameOf = (change: ApprovalChange): string => {
    let frame = frames.get(change);
    if (!frame) {
      frame = jsonFrame({
        type: change.type,
        approval: view(change.approval),
        pending: approvals.countPending(),
      } satisfies ApprovalEventMessage);
      frames.set(change, frame);
    }
    return frame;
  };

  /** GET /api/approvals/events: `data: {type, approval, pending}` for every change, as it happens. */
  const events = protect("approvals", async (request) => {
    const { threadId } = readQuery(request, EventsQuery);
    const queue = new EventQueue<string>();
    queue.push(jsonFrame({ type: "hello", pending: approvals.countPending() } satisfies ApprovalEventMessage));
    const unsubscribe = approvals.onChange((change) => {
      if (threadId && change.approval.threadId !== threadId) return;
      queue.push(frameOf(change));
    });
    const stop = () => {
      unsubscribe();
      queue.close();
    };
    request.signal.addEventListener("abort", stop, { once: true });
    return new Response(sseBody(queue, { onCancel: stop }), { headers: SSE_HEADERS });
  });

  return { list, get, decide, decideMany, events };
}

/** An approval as the API and the inbox show it. */
export function approvalView(approval: Approval, registry: ToolRegistry): ApprovalView {
  const { key: _key, argsDigest: _digest, ...rest } = approval;
  const tool = registry.get(approval.tool);
  return { ...rest, ...(tool && { toolTitle: tool.title, approvalPolicy: tool.approval }) };
}
