"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import type { ToolPage, ToolSummary } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";
import { EMPTY_FILTERS, PAGE_SIZE, type ToolFilters } from "./tool-filters";

type Page = ToolPage;
const ROW_HEIGHT = 76;

/**
 * Search and filter the registry, with the results in a virtualised list: only the rows on screen
 * are in the page, and further pages load as the list scrolls, so 10,000 tools stay fast.
 */
export function ToolBrowser({
  initial,
  firstPage,
  sources,
  kinds,
  targets,
}: {
  initial: ToolFilters;
  /** The first page for `initial`, rendered on the server; fetched here when absent. */
  firstPage?: Page;
  sources: Array<{ id: string; name: string }>;
  kinds: string[];
  targets: readonly string[];
}) {
  const [filters, setFilters] = useState(initial);
  const [items, setItems] = useState<ToolSummary[]>(firstPage?.items ?? []);
  const [total, setTotal] = useState<number | undefined>(firstPage?.total);
  const [nextCursor, setNextCursor] = useState<string | null>(firstPage?.nextCursor ?? null);
  // The server's first page answers the first query: the list shows before any script asks.
  const served = useRef(firstPage !== undefined);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  // Answers to an older query are dropped: each new query bumps the generation.
  const generation = useRef(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const id = useId();

  const query = useCallback(
    (cursor?: string) => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(filters)) if (value.trim()) params.set(key, value.trim());
      params.set("limit", String(PAGE_SIZE));
      if (cursor) params.set("cursor", cursor);
      return `/api/tools?${params}`;
    },
    [filters],
  );

  useEffect(() => {
    const mine = ++generation.current;
    if (served.current) {
      served.current = false;
      return;
    }
    const controller = new AbortController();
    // Typing waits a moment before asking; choosing a filter asks at once.
    const timer = setTimeout(
      () => {
        setLoading(true);
        requestJson<Page>(query(), { signal: controller.signal })
          .then((page) => {
            if (mine !== generation.current) return;
            setItems(page.items);
            setNextCursor(page.nextCursor);
            setTotal(page.total);
            setError(undefined);
            scrollRef.current?.scrollTo({ top: 0 });
          })
          .catch((e: unknown) => {
            if (mine === generation.current && !controller.signal.aborted) setError(e);
          })
          .finally(() => {
            if (mine === generation.current) setLoading(false);
          });
      },
      filters.text ? 150 : 0,
    );
    const params = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
    window.history.replaceState(null, "", params.size ? `?${params}` : window.location.pathname);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [filters, query]);

  const loadMore = useCallback(() => {
    if (!nextCursor || loading) return;
    const mine = generation.current;
    setLoading(true);
    requestJson<Page>(query(nextCursor))
      .then((page) => {
        if (mine !== generation.current) return;
        setItems((current) => current.concat(page.items));
        setNextCursor(page.nextCursor);
        setTotal(page.total);
      })
      .catch((e: unknown) => {
        if (mine === generation.current) setError(e);
      })
      .finally(() => {
        if (mine === generation.current) setLoading(false);
      });
  }, [nextCursor, loading, query]);

  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const virtualItems = virtualizer.getVirtualItems();
  const lastIndex = virtualItems.at(-1)?.index ?? -1;
  useEffect(() => {
    if (lastIndex >= items.length - 40) loadMore();
  }, [lastIndex, items.length, loadMore]);

  const set = (key: keyof ToolFilters) => (value: string) => setFilters((current) => ({ ...current, [key]: value }));
  const active = Object.entries(filters).some(([, v]) => v);

  return (
    <div className="space-y-4">
      <form role="search" aria-label="Tools" className="space-y-3" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor={`${id}-text`} className="block text-sm font-medium">
            Search tools
          </label>
          <input
            id={`${id}-text`}
            type="search"
            placeholder="Name, description or tag"
            className="mt-1 w-full max-w-xl rounded-md border border-slate-300 bg-white px-3 py-2 text-sm"
            value={filters.text}
            onChange={(e) => set("text")(e.target.value)}
          />
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <Filter
            id={`${id}-source`}
            label="Source"
            value={filters.source}
            onChange={set("source")}
            options={sources.map((s) => [s.id, s.name])}
          />
          <Filter id={`${id}-kind`} label="Kind" value={filters.kind} onChange={set("kind")} options={kinds.map((k) => [k, k])} />
          <Filter
            id={`${id}-effects`}
            label="Effect"
            value={filters.effects}
            onChange={set("effects")}
            options={[
              ["read", "read"],
              ["write", "write"],
              ["destructive", "destructive"],
            ]}
          />
          <Filter
            id={`${id}-approval`}
            label="Approval"
            value={filters.approval}
            onChange={set("approval")}
            options={[
              ["required", "Asks for approval"],
              ["none", "Runs without asking"],
            ]}
          />
          <Filter id={`${id}-target`} label="Target" value={filters.target} onChange={set("target")} options={targets.map((t) => [t, t])} />
          <Filter
            id={`${id}-enabled`}
            label="Enabled"
            value={filters.enabled}
            onChange={set("enabled")}
            options={[
              ["true", "Enabled"],
              ["false", "Disabled"],
            ]}
          />
          {active ? (
            <button
              type="button"
              className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100"
              onClick={() => setFilters(EMPTY_FILTERS)}
            >
              Clear filters
            </button>
          ) : null}
        </div>
      </form>

      <p className="text-sm text-slate-600" role="status" aria-live="polite">
        {total === undefined
          ? "Loading tools…"
          : `${total.toLocaleString("en")} ${total === 1 ? "tool" : "tools"}${loading ? " · loading…" : ""}`}
      </p>
      {error ? <ErrorBox error={error} title="The tools could not be listed" /> : null}

      <div
        ref={scrollRef}
        className="h-[calc(100vh-20rem)] min-h-96 overflow-auto rounded-lg border border-slate-200 bg-white"
        tabIndex={-1}
      >
        {items.length === 0 && total === 0 ? (
          <p className="p-6 text-sm text-slate-600">
            No tool matches. {active ? "Try fewer filters." : "Import an OpenAPI document on the Sources page."}
          </p>
        ) : null}
        <div role="list" aria-label="Tools found" className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
          {virtualItems.map((row) => {
            const tool = items[row.index]!;
            return (
              <div
                key={tool.name}
                role="listitem"
                aria-setsize={total}
                aria-posinset={row.index + 1}
                className="absolute left-0 top-0 w-full border-b border-slate-100 px-4 py-2"
                style={{ height: ROW_HEIGHT, transform: `translateY(${row.start}px)` }}
              >
                <ToolRow tool={tool} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function ToolRow({ tool }: { tool: ToolSummary }) {
  return (
    <div className="flex h-full flex-col justify-center gap-0.5 overflow-hidden">
      <div className="flex items-center gap-2">
        <Link
          href={`/tools/${encodeURIComponent(tool.name)}`}
          className="truncate font-mono text-sm font-medium text-indigo-700 hover:underline"
        >
          {tool.name}
        </Link>
        {tool.title !== tool.name ? <span className="truncate text-sm text-slate-700">{tool.title}</span> : null}
        <span className="ml-auto flex shrink-0 gap-1 text-xs">
          <Badge>{tool.kind}</Badge>
          <Badge tone={tool.effects === "read" ? "slate" : tool.effects === "write" ? "amber" : "red"}>{tool.effects}</Badge>
          {tool.needsApproval ? <Badge tone="amber">asks for approval</Badge> : null}
          {!tool.enabled ? <Badge tone="red">disabled</Badge> : null}
        </span>
      </div>
      <p className="truncate text-xs text-slate-600">{tool.description || "No description"}</p>
      {tool.tags.length ? <p className="truncate text-xs text-slate-500">{tool.tags.map((t) => `#${t}`).join(" ")}</p> : null}
    </div>
  );
}

function Badge({ children, tone = "slate" }: { children: React.ReactNode; tone?: "slate" | "amber" | "red" }) {
  const colours = { slate: "bg-slate-100 text-slate-700", amber: "bg-amber-100 text-amber-900", red: "bg-red-100 text-red-800" };
  return <span className={`rounded px-1.5 py-0.5 ${colours[tone]}`}>{children}</span>;
}

function Filter({
  id,
  label,
  value,
  onChange,
  options,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: Array<[string, string]>;
}) {
  return (
    <div>
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">
        {label}
      </label>
      <select
        id={id}
        className="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
        value={value}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">Any</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
