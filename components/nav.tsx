"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { SESSION_PATH, SIGN_IN_PATH, type SessionView } from "@/lib/api/contracts";
import { requestJson } from "./common/request-json";
import { useApprovalEvents } from "./common/use-approval-events";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/chat", label: "Chat" },
  { href: "/approvals", label: "Approvals" },
  { href: "/tools", label: "Tools" },
  { href: "/sources", label: "Sources" },
  { href: "/runs", label: "Runs" },
  { href: "/embed", label: "Embed" },
  { href: "/settings", label: "Settings" },
];

/**
 * The console's main navigation; `pending` is the number of approvals waiting (followed live for
 * those who may read approvals). `user` is who is signed in; the local operator has no sign-out.
 */
export function Nav({ pending: initialPending, user }: { pending: number; user: SessionView }) {
  const [pending, setPending] = useState(initialPending);
  // The count stays live: every approval change carries the new number of pending approvals.
  useApprovalEvents((message) => setPending(message.pending), undefined, user.scopes.includes("approvals"));
  return (
    <div className="flex flex-col gap-6">
      <Links pending={pending} />
      <UserBox user={user} />
    </div>
  );
}

function UserBox({ user }: { user: SessionView }) {
  const [failed, setFailed] = useState<string>();
  if (user.id === "local") return <p className="px-3 text-xs text-slate-500">Local operator: signed in by being on this machine.</p>;
  const signOut = async () => {
    try {
      await requestJson(SESSION_PATH, { method: "DELETE" });
      window.location.assign(SIGN_IN_PATH);
    } catch (error) {
      setFailed((error as Error).message);
    }
  };
  return (
    <div className="border-t border-slate-200 px-3 pt-4 text-xs text-slate-600">
      <p>
        Signed in as <span className="font-medium text-slate-800">{user.id}</span>
      </p>
      <p className="mt-0.5">
        Role: <span data-testid="role">{user.role}</span>
      </p>
      <button type="button" onClick={signOut} className="mt-2 rounded border border-slate-300 px-2 py-1 hover:bg-slate-100">
        Sign out
      </button>
      {failed ? <p className="mt-1 text-red-700">{failed}</p> : null}
    </div>
  );
}

function Links({ pending }: { pending: number }) {
  const pathname = usePathname();
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
