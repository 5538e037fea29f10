"use client";

import { useState } from "react";

/** JSON as a collapsible tree; objects and arrays deeper than `openDepth` start folded. */
export function JsonView({ value, openDepth = 2, label }: { value: unknown; openDepth?: number; label?: string }) {
  return (
    <div className="overflow-x-auto rounded-md bg-slate-50 p-2 font-mono text-xs leading-5 text-slate-800" aria-label={label}>
      <Node value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}

function Node({ value, depth, openDepth, name }: { value: unknown; depth: number; openDepth: number; name?: string }) {
  const [open, setOpen] = useState(depth < openDepth);
  const key = name !== undefined ? <span className="text-indigo-700">{JSON.stringify(name)}: </span> : null;
  if (value === null || typeof value !== "object") {
    return (
      <div style={{ paddingLeft: depth ? 12 : 0 }}>
        {key}
        <Scalar value={value} />
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  const [openMark, closeMark] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (!entries.length)
    return (
      <div style={{ paddingLeft: depth ? 12 : 0 }}>
        {key}
        {openMark}
        {closeMark}
      </div>
    );
  return (
    <div style={{ paddingLeft: depth ? 12 : 0 }}>
      <button
        type="button"
        className="mr-1 text-slate-500 hover:text-slate-900"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        aria-label={open ? "Fold" : "Unfold"}
      >
        {open ? "▾" : "▸"}
      </button>
      {key}
      {openMark}
      {open ? (
        entries.map(([k, v]) => (
          <Node key={k} name={Array.isArray(value) ? undefined : k} value={v} depth={depth + 1} openDepth={openDepth} />
        ))
      ) : (
        <span className="text-slate-500">
          {" "}
          {entries.length} {Array.isArray(value) ? "items" : "keys"}{" "}
        </span>
      )}
      {closeMark}
    </div>
  );
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === "string") return <span className="break-all text-emerald-700">{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className="text-amber-700">{value}</span>;
  if (typeof value === "boolean") return <span className="text-purple-700">{String(value)}</span>;
  return <span className="text-slate-500">{value === undefined ? "undefined" : "null"}</span>;
}
