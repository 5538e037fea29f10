"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { useApprovalEvents } from "./common/use-approval-events";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/chat", label: "Chat" },
  { href: "/approvals", label: "Approvals" },
  { href: "/tools", label: "Tools" },
  { href: "/sources", label: "Sources" },
  { href: "/runs", label: "Runs" },
];

/** The console's main navigation; `pending` is the number of approvals waiting. */
export function Nav({ pending: initialPending }: { pending: number }) {
  const pathname = usePathname();
  const [pending, setPending] = useState(initialPending);
  // The count stays live: every approval change carries the new number of pending approvals.
  useApprovalEvents((message) => setPending(message.pending));
  return (
    <nav aria-label="Main" className="flex flex-col gap-1">
      {LINKS.map((link) => {
        const active = link.href === "/" ? pathname === "/" : pathname.startsWith(link.href);
        return (
          <Link
            key={link.href}
            href={link.href}
            aria-current={active ? "page" : undefined}
            className={`flex items-center justify-between rounded-md px-3 py-2 text-sm font-medium ${
              active ? "bg-indigo-50 text-indigo-700" : "text-slate-700 hover:bg-slate-100"
            }`}
          >
            <span>{link.label}</span>
            {link.href === "/approvals" && pending > 0 ? (
              <span className="rounded-full bg-amber-500 px-2 py-0.5 text-xs font-semibold text-white" aria-label={`${pending} pending`}>
                {pending}
              </span>
            ) : null}
          </Link>
        );
      })}
    </nav>
  );
}
