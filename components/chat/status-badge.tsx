import type { ToolCallStatus } from "@/lib/client";

const STYLES: Record<ToolCallStatus, { label: string; className: string }> = {
  streaming_args: { label: "streaming arguments", className: "bg-sky-100 text-sky-800" },
  running: { label: "running", className: "bg-blue-100 text-blue-800" },
  awaiting_approval: { label: "awaiting approval", className: "bg-amber-100 text-amber-900" },
  succeeded: { label: "succeeded", className: "bg-emerald-100 text-emerald-800" },
  failed: { label: "failed", className: "bg-red-100 text-red-800" },
  denied: { label: "denied", className: "bg-orange-100 text-orange-900" },
  cancelled: { label: "cancelled", className: "bg-slate-200 text-slate-700" },
  unknown: { label: "outcome unknown", className: "bg-purple-100 text-purple-900" },
};

/** A tool call's status as a small labelled badge. */
export function StatusBadge({ status }: { status: ToolCallStatus }) {
  const style = STYLES[status];
  return (
    <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${style.className}`} data-status={status}>
      {status === "running" || status === "streaming_args" ? (
        <span className="inline-block h-1.5 w-1.5 animate-pulse rounded-full bg-current" aria-hidden />
      ) : null}
      {style.label}
    </span>
  );
}
