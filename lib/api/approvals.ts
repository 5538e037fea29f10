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
    const [page, pending] = await Promise.all([approvals.list({ ...filter, text: q }), approvals.countPending()]);
    return json({ items: page.items.map(view), nextCursor: page.nextCursor, pending } satisfies ApprovalPage);
  });

  const get = protect("approvals", async (request, _caller, context) => {
    const id = await routeParam(context, "id");
    const approval = await approvals.get(id);
    if (!approval) throw new ApprovalNotFound(id);
    return json({ approval: view(approval), events: await approvals.events(approval.id) } satisfies ApprovalDetail);
  });

  const decide = protect("approvals", async (request, caller, context) => {
    const id = await routeParam(context, "id");
    const decision = await readJsonBody(request, DecisionPayload, DECISION_MAX_BYTES);
    const approval = await decideApproval({ approvals, grants, registry }, id, { ...decision, decidedBy: caller.id });
    return json({ approval: view(approval) });
  });

  const decideMany = protect("approvals", async (request, caller) => {
    const { ids, ...decision } = await readJsonBody(request, BulkDecision, DECISION_MAX_BYTES);
    // One after another, in the order given, as before the store was async.
    const results: BulkDecisionAnswer["results"] = [];
    for (const id of new Set(ids)) {
      try {
        const approval = await decideApproval({ approvals, grants, registry }, id, { ...decision, decidedBy: caller.id });
        results.push({ id, ok: true, status: approval.status });
      } catch (error) {
        // One refused decision does not stop the others; each says why it was refused.
        if (!isDomainError(error)) throw error;
        results.push({ id, ok: false, error: { code: error.kind, message: error.message } });
      }
    }
    return json({ results } satisfies BulkDecisionAnswer);
  });

  // Every open stream hears the same change: build its frame (and count what is pending) once.
  const frames = new WeakMap<ApprovalChange, Promise<string>>();
  const frameOf = (change: ApprovalChange): Promise<string> => {
    let frame = frames.get(change);
    if (!frame) {
      frame = approvals
        .countPending()
        .then((pending) => jsonFrame({ type: change.type, approval: view(change.approval), pending } satisfies ApprovalEventMessage));
      // Each stream awaits it in turn; this keeps a failure from counting as unhandled meanwhile.
      frame.catch(() => {});
      frames.set(change, frame);
    }
    return frame;
  };

  /** GET /api/approvals/events: `data: {type, approval, pending}` for every change, as it happens. */
  const events = protect("approvals", async (request) => {
    const { threadId } = readQuery(request, EventsQuery);
    const queue = new EventQueue<string>();
    // Frames are built asynchronously (the pending count is a query) but pushed in the order the
    // changes happened: each waits for the one before it, and "hello" comes first. The hello frame
    // is asked for and the listener added in the same tick, so no change falls between the two.
    let tail: Promise<void> = Promise.resolve();
    const send = (frame: Promise<string>) => {
      // A failed count ends this stream with the error rather than leaving it silent.
      tail = tail.then(async () => queue.push(await frame)).catch((error: unknown) => queue.fail(error));
    };
    send(approvals.countPending().then((pending) => jsonFrame({ type: "hello", pending } satisfies ApprovalEventMessage)));
    const unsubscribe = approvals.onChange((change) => {
      if (threadId && change.approval.threadId !== threadId) return;
      send(frameOf(change));
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
