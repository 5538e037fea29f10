"use client";

import Link from "next/link";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import type { ApprovalDetail, ApprovalPage, ApprovalView, BulkDecision, BulkDecisionAnswer, DecisionPayload } from "@/lib/api/contracts";
import { ToolValueView } from "../common/content-blocks-view";
import { JsonView } from "../common/json-view";
import { LocalTime } from "../common/local-time";
import { errorMessage, requestJson } from "../common/request-json";
import { TabList } from "../common/tab-list";
import { useApprovalEvents } from "../common/use-approval-events";
import { timeLeft, useNow } from "../common/use-now";
import { DecisionControls } from "./decision-controls";

export interface InboxTool {
  name: string;
  title: string;
  inputSchema: Record<string, unknown>;
}

type Tab = "pending" | "history";
const HISTORY = "approved,denied,expired,cancelled,consumed";
// The surfaces that ask for approvals today (A2A joins when it is served).
const SURFACES = ["agui", "agui-remote", "console", "rest", "mcp", "a2a"];

/** The approval a link (`/approvals?approval=ID`) points at, as the page found it (none: no such id). */
export interface LinkedApproval {
  id: string;
  approval?: ApprovalView;
}

interface Filters {
  status: string;
  tool: string;
  surface: string;
  principal: string;
  q: string;
}

/**
 * Every approval across threads, agents and surfaces. Pending ones are decided inline (approve,
 * deny with a reason, edit then approve, or several at once); the history shows the audit trail.
 * The list follows GET /api/approvals/events, so it updates with no reload. A linked approval
 * (`focus`) opens its tab, stays on screen even when the first page does not hold it, and is marked
 * and scrolled into view.
 */
export function ApprovalsInbox({ initial, tools, focus }: { initial: ApprovalView[]; tools: InboxTool[]; focus?: LinkedApproval }) {
  const startsInHistory = focus?.approval !== undefined && focus.approval.status !== "pending";
  const [tab, setTab] = useState<Tab>(startsInHistory ? "history" : "pending");
  const panelId = useId();
  const [filters, setFilters] = useState<Filters>({ status: "", tool: "", surface: "", principal: "", q: "" });
  // The page renders the first pending page; the history tab starts empty until its first load.
  const [items, setItems] = useState<ApprovalView[]>(startsInHistory ? [] : initial);
  const [linked, setLinked] = useState<ApprovalView | undefined>(focus?.approval);
  const linkedId = focus?.approval ? focus.id : undefined;
  const [nextCursor, setNextCursor] = useState<string>();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkReason, setBulkReason] = useState("");
  const [notice, setNotice] = useState<string | undefined>(
    focus && !focus.approval ? `No approval has the id ${focus.id}: the link may be mistyped, or the approval was removed.` : undefined,
  );
  const [loading, setLoading] = useState(startsInHistory);
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const schemas = new Map(tools.map((t) => [t.name, t.inputSchema]));

  const query = useCallback(
    (cursor?: string) => {
      const { status, ...rest } = filters;
      const params = new URLSearchParams({ status: tab === "pending" ? "pending" : status || HISTORY, limit: "50" });
      for (const [key, value] of Object.entries(rest)) if (value) params.set(key, value);
      if (cursor) params.set("cursor", cursor);
      return `/api/approvals?${params}`;
    },
    [tab, filters],
  );
  const filtered = Object.values(filters).some(Boolean);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      const body = await requestJson<ApprovalPage>(query());
      setItems(body.items);
      setNextCursor(body.nextCursor);
      setSelected((old) => new Set([...old].filter((id) => body.items.some((i) => i.id === id && i.status === "pending"))));
      if (linkedId !== undefined) {
        // The linked approval may lie beyond the first page, or have been decided meanwhile: read it by id.
        const listed = body.items.find((i) => i.id === linkedId);
        setLinked(listed ?? (await requestJson<ApprovalDetail>(`/api/approvals/${encodeURIComponent(linkedId)}`)).approval);
      }
    } catch (error) {
      setNotice(errorMessage(error));
    } finally {
      setLoading(false);
    }
  }, [query, linkedId]);

  useEffect(() => {
    void load();
  }, [load]);
  // For `npm run bench`: when the first page is on screen.
  useEffect(() => void performance.mark("agui-console:inbox-rendered"), []);

  useApprovalEvents(() => {
    clearTimeout(refetchTimer.current);
    refetchTimer.current = setTimeout(() => void load(), 150);
  });

  const more = async () => {
    if (!nextCursor) return;
    try {
      const body = await requestJson<ApprovalPage>(query(nextCursor));
      setItems((old) => [...old, ...body.items]);
      setNextCursor(body.nextCursor);
    } catch (error) {
      setNotice(errorMessage(error));
    }
  };

  const decide = async (id: string, decision: DecisionPayload): Promise<boolean> => {
    setNotice(undefined);
    try {
      await requestJson(`/api/approvals/${encodeURIComponent(id)}/decision`, { method: "POST", body: decision });
      return true;
    } catch (error) {
      setNotice(errorMessage(error));
      return false;
    } finally {
      void load();
    }
  };

  const decideSelected = async (approved: boolean) => {
    const ids = [...selected];
    if (!ids.length) return;
    const body: BulkDecision = { ids, approved, ...(!approved && bulkReason.trim() ? { reason: bulkReason.trim() } : {}) };
    let results: BulkDecisionAnswer["results"];
    try {
      ({ results } = await requestJson<BulkDecisionAnswer>("/api/approvals/decisions", { method: "POST", body }));
    } catch (error) {
      return setNotice(errorMessage(error));
    }
    const failed = results.flatMap((r) => (r.ok ? [] : [r.error.message]));
    setNotice(
      failed.length
        ? `${results.length - failed.length} decided; ${failed.length} not: ${failed.join("; ")}`
        : `${results.length} ${approved ? "approved" : "denied"}.`,
    );
    setSelected(new Set());
    setBulkReason("");
    void load();
  };

  // The linked approval heads the list when the page loaded does not hold it, on its own tab only.
  const pinned =
    linked && !filtered && !items.some((i) => i.id === linked.id) && (linked.status === "pending") === (tab === "pending")
      ? linked
      : undefined;
  const shown = pinned ? [pinned, ...items] : items;
  const pendingIds = shown.filter((i) => i.status === "pending").map((i) => i.id);

  return (
    <div className="space-y-4">
      <TabList
        label="Approvals"
        panelId={panelId}
        selected={tab}
        onSelect={(t) => {
          setTab(t);
          setSelected(new Set());
        }}
        tabs={[
          { key: "pending", label: "Pending" },
          { key: "history", label: "History" },
        ]}
      />

      <div role="tabpanel" id={panelId} aria-labelledby={`${panelId}-tab-${tab}`} className="space-y-4">
        <form className="flex flex-wrap items-end gap-3" role="search" aria-label="Filter approvals" onSubmit={(e) => e.preventDefault()}>
          <Labelled label="Search">
            <input
              type="search"
              className="rounded-md border border-slate-300 px-2 py-1.5 text-sm"
              value={filters.q}
              onChange={(e) => setFilters({ ...filters, q: e.target.value })}
              placeholder="tool or argument"
            />
          </Labelled>
          {tab === "history" ? (
            <Labelled label="Status">
              <select
                className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
                value={filters.status}
                onChange={(e) => setFilters({ ...filters, status: e.target.value })}
              >
                <option value="">All decided</option>
                {HISTORY.split(",").map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </Labelled>
          ) : null}
          <Labelled label="Tool">
            <select
              className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
              value={filters.tool}
              onChange={(e) => setFilters({ ...filters, tool: e.target.value })}
            >
              <option value="">All tools</option>
              {tools.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </Labelled>
          <Labelled label="Surface">
            <select
              className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
              value={filters.surface}
              onChange={(e) => setFilters({ ...filters, surface: e.target.value })}
            >
              <option value="">All surfaces</option>
              {SURFACES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </Labelled>
          <Labelled label="Asked by">
            <input
              className="rounded-md border border-slate-300 px-2 py-1.5 text-sm"
              value={filters.principal}
              onChange={(e) => setFilters({ ...filters, principal: e.target.value })}
              placeholder="principal"
            />
          </Labelled>
        </form>

        {notice ? (
          <p role="status" className="rounded-md bg-slate-100 px-3 py-2 text-sm">
            {notice}
          </p>
        ) : null}

        {tab === "pending" && pendingIds.length ? (
          <div
            className="flex flex-wrap items-center gap-2 rounded-md border border-slate-200 bg-white p-2 text-sm"
            aria-label="Decide selected"
          >
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={selected.size > 0 && selected.size === pendingIds.length}
                onChange={(e) => setSelected(e.target.checked ? new Set(pendingIds) : new Set())}
              />
              Select all
            </label>
            <span className="text-slate-500">{selected.size} selected</span>
            <button
              type="button"
              disabled={!selected.size}
              className="rounded-md bg-emerald-700 px-3 py-1 font-medium text-white disabled:opacity-40"
              onClick={() => void decideSelected(true)}
            >
              Approve selected
            </button>
            <label className="sr-only" htmlFor="bulk-reason">
              Reason for denying the selected approvals
            </label>
            <input
              id="bulk-reason"
              className="rounded-md border border-slate-300 px-2 py-1"
              placeholder="reason (optional)"
              value={bulkReason}
              onChange={(e) => setBulkReason(e.target.value)}
            />
            <button
              type="button"
              disabled={!selected.size}
              className="rounded-md bg-red-700 px-3 py-1 font-medium text-white disabled:opacity-40"
              onClick={() => void decideSelected(false)}
            >
              Deny selected
            </button>
          </div>
        ) : null}

        <ul
          className="space-y-3"
          aria-label={tab === "pending" ? "Pending approvals" : "Decided approvals"}
          aria-busy={loading || undefined}
        >
          {shown.length === 0 && !loading ? (
            <li className="text-sm text-slate-500">
              {tab === "pending" ? "Nothing waits for a decision." : "No decided approvals match."}
            </li>
          ) : null}
          {shown.map((approval) =>
            tab === "pending" ? (
              <PendingRow
                key={approval.id}
                approval={approval}
                linked={approval.id === focus?.id}
                schema={schemas.get(approval.tool)}
                selected={selected.has(approval.id)}
                onSelect={(on) => setSelected((old) => new Set(on ? [...old, approval.id] : [...old].filter((x) => x !== approval.id)))}
                decide={decide}
              />
            ) : (
              <HistoryRow key={approval.id} approval={approval} linked={approval.id === focus?.id} />
            ),
          )}
        </ul>
        {nextCursor ? (
          <button
            type="button"
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100"
            onClick={() => void more()}
          >
            Load more
          </button>
        ) : null}
      </div>
    </div>
  );
}

function PendingRow({
  approval,
  linked,
  schema,
  selected,
  onSelect,
  decide,
}: {
  approval: ApprovalView;
  linked: boolean;
  schema?: Record<string, unknown>;
  selected: boolean;
  onSelect: (on: boolean) => void;
  decide: (id: string, decision: DecisionPayload) => Promise<boolean>;
}) {
  const now = useNow();
  const [busy, setBusy] = useState(false);
  const left = timeLeft(approval.expiresAt, now);
  const act = async (decision: Parameters<typeof decide>[1]) => {
    setBusy(true);
    await decide(approval.id, decision);
    setBusy(false);
  };
  const titleId = `approval-${approval.id}`;
  const reveal = useRevealOnce(linked);
  return (
    <li aria-labelledby={titleId} className={rowClass(linked)} data-approval-id={approval.id} {...linkedProps(linked, reveal)}>
      <div className="flex flex-wrap items-start gap-3">
        <input
          type="checkbox"
          className="mt-1"
          aria-label={`Select ${approval.tool} ${approval.id}`}
          checked={selected}
          onChange={(e) => onSelect(e.target.checked)}
        />
        <div className="min-w-0 flex-1 space-y-1">
          <h3 id={titleId} className="font-semibold">
            <span className="font-mono">{approval.tool}</span>
            {approval.toolTitle && approval.toolTitle !== approval.tool ? (
              <span className="ml-2 font-normal text-slate-500">{approval.toolTitle}</span>
            ) : null}
            {linked ? <LinkedBadge /> : null}
          </h3>
          {/* A remote agent's question, prefixed with the agent that asks (remote:<source name>). */}
          {approval.surface === "agui-remote" && approval.message ? <p className="text-sm text-slate-700">{approval.message}</p> : null}
          <p className="text-xs text-slate-600">
            asked by <span className="font-medium">{approval.principal}</span> via {approval.surface} ·{" "}
            {now === undefined ? "" : ago(approval.createdAt, now)} ·{" "}
            <span className={left.expired ? "font-semibold text-red-700" : ""}>{left.label}</span>
            {approval.threadId && (approval.surface === "agui" || approval.surface === "agui-remote") ? (
              <>
                {" "}
                ·{" "}
                <Link className="text-indigo-700 underline" href={`/chat/${encodeURIComponent(approval.threadId)}`}>
                  thread
                </Link>
              </>
            ) : null}
            {approval.runId ? (
              <>
                {" "}
                ·{" "}
                <Link className="text-indigo-700 underline" href={`/runs/${encodeURIComponent(approval.runId)}`}>
                  run
                </Link>
              </>
            ) : null}
          </p>
          <JsonView value={approval.args} openDepth={1} label={`Arguments of ${approval.tool}`} />
        </div>
      </div>
      {left.expired ? null : (
        <DecisionControls
          busy={busy}
          proposedArgs={approval.args}
          schema={schema}
          handlers={{
            approve: (editedArgs) => void act(editedArgs ? { approved: true, editedArgs } : { approved: true }),
            deny: (reason) => void act(reason ? { approved: false, reason } : { approved: false }),
            ...(approval.approvalPolicy === "once_per_thread" && approval.threadId
              ? { approveForThread: () => void act({ approved: true, rememberForThread: true }) }
              : {}),
          }}
        />
      )}
    </li>
  );
}

/** A used approval whose call was cut off by a stop of the console: it may or may not have run. */
function outcomeUnknown(approval: ApprovalView): boolean {
  const error = approval.result?.error;
  return (
    approval.status === "consumed" &&
    typeof error === "object" &&
    error !== null &&
    (error as { kind?: unknown }).kind === "outcome_unknown"
  );
}

/** What the history says of an approval whose arguments were not edited, by its status. */
const UNEDITED: Partial<Record<ApprovalView["status"], string>> = {
  approved: "none: approved as proposed",
  consumed: "none: the call ran as proposed",
};

function HistoryRow({ approval, linked }: { approval: ApprovalView; linked: boolean }) {
  const [trail, setTrail] = useState<ApprovalDetail["events"]>();
  const [open, setOpen] = useState(false);
  const titleId = `history-${approval.id}`;
  const reveal = useRevealOnce(linked);
  return (
    <li aria-labelledby={titleId} className={rowClass(linked)} data-approval-id={approval.id} {...linkedProps(linked, reveal)}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 id={titleId} className="font-mono font-semibold">
          {approval.tool}
        </h3>
        {linked ? <LinkedBadge /> : null}
        {outcomeUnknown(approval) ? (
          <span
            className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900"
            data-status="outcome_unknown"
            title="The call was approved and started, and the console stopped before its outcome was recorded: it may or may not have run. It will not run again under this approval."
          >
            outcome unknown
          </span>
        ) : (
          <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium" data-status={approval.status}>
            {approval.status}
          </span>
        )}
        <span className="text-xs text-slate-600">
          asked by {approval.principal} via {approval.surface} on <LocalTime at={approval.createdAt} />
          {approval.decidedBy ? (
            <>
              {" "}
              · decided by {approval.decidedBy} on <LocalTime at={approval.decidedAt!} />
            </>
          ) : null}
        </span>
      </div>
      {approval.reason ? <p className="mt-1 text-sm">Reason: {approval.reason}</p> : null}
      <div className="mt-2 grid gap-2 md:grid-cols-2">
        <div>
          <h4 className="text-xs font-medium text-slate-500">Proposed arguments</h4>
          <JsonView value={approval.args} openDepth={1} label={`Proposed arguments of ${approval.id}`} />
        </div>
        <div>
          <h4 className="text-xs font-medium text-slate-500">Edited arguments</h4>
          {approval.editedArgs ? (
            <JsonView value={approval.editedArgs} openDepth={1} label={`Edited arguments of ${approval.id}`} />
          ) : (
            // An approved call runs when its run goes on (then the approval is consumed); a denied one never does.
            <p className="text-xs text-slate-500">{UNEDITED[approval.status] ?? "none"}</p>
          )}
        </div>
      </div>
      {approval.result ? (
        <div className="mt-2">
          <h4 className="text-xs font-medium text-slate-500">
            Outcome of the call
            {approval.ranAt ? (
              <>
                {" "}
                (ran <LocalTime at={approval.ranAt} />)
              </>
            ) : null}
          </h4>
          <ToolValueView
            value={approval.result?.ok === true ? approval.result.value : undefined}
            json={approval.result}
            tool={approval.tool}
            openDepth={2}
            label={`Outcome of ${approval.id}`}
          />
        </div>
      ) : null}
      <button
        type="button"
        aria-expanded={open}
        className="mt-2 text-xs font-medium text-indigo-700 underline"
        onClick={async () => {
          setOpen(!open);
          if (!trail) {
            try {
              setTrail((await requestJson<ApprovalDetail>(`/api/approvals/${encodeURIComponent(approval.id)}`)).events);
            } catch {
              // The trail stays closed; the row above already shows the decision.
            }
          }
        }}
      >
        {open ? "Hide audit trail" : "Show audit trail"}
      </button>
      {open && trail ? (
        <ol className="mt-2 space-y-1 border-l-2 border-slate-200 pl-3 text-xs" aria-label={`Audit trail of ${approval.id}`}>
          {trail.map((event) => (
            <li key={event.id}>
              <span className="font-medium">{event.type}</span> by {event.actor} on <LocalTime at={event.createdAt} />
              {event.data && event.type === "decided"
                ? ` (${(event.data as { approved?: boolean }).approved ? "approved" : "denied"}${(event.data as { reason?: string }).reason ? `: ${(event.data as { reason?: string }).reason}` : ""})`
                : ""}
            </li>
          ))}
        </ol>
      ) : null}
    </li>
  );
}

function rowClass(linked: boolean): string {
  const base = "rounded-lg border p-4 text-sm";
  return linked ? `${base} border-indigo-400 bg-indigo-50 ring-2 ring-indigo-400 outline-none` : `${base} border-slate-200 bg-white`;
}

/** What marks the linked row for assistive technology and tests: the current item, focusable by script. */
function linkedProps(linked: boolean, reveal: (element: HTMLLIElement | null) => void) {
  return linked ? { ref: reveal, tabIndex: -1, "aria-current": true as const, "data-linked": "true" } : {};
}

function LinkedBadge() {
  return (
    <span className="ml-2 rounded-full bg-indigo-600 px-2 py-0.5 align-middle font-sans text-xs font-medium text-white">
      the approval you were linked to
    </span>
  );
}

/**
 * A ref for the linked row: the first time it is on screen it is scrolled to the middle of the view
 * and focused, so a keyboard user starts there; later renders leave scrolling to the person.
 */
function useRevealOnce(linked: boolean): (element: HTMLLIElement | null) => void {
  const done = useRef(false);
  return useCallback(
    (element: HTMLLIElement | null) => {
      if (!linked || !element || done.current) return;
      done.current = true;
      element.scrollIntoView({ block: "center" });
      element.focus({ preventScroll: true });
    },
    [linked],
  );
}

function Labelled({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
      {label}
      {children}
    </label>
  );
}

function ago(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}
