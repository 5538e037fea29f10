import Link from "next/link";
import type { ReactNode } from "react";
import { Nav } from "@/components/nav";
import { sessionView } from "@/lib/api/pages";
import { getServices } from "@/lib/services";
import { requireCaller } from "../page-caller";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const caller = await requireCaller();
  // The count is for those who may read approvals (the nav follows them live by the same scope).
  const pending = caller.scopes.includes("approvals") ? await (await getServices()).approvals.countPending() : 0;
  return (
    <div className="flex min-h-screen">
      <aside className="w-56 shrink-0 border-r border-slate-200 bg-white p-4">
        <Link href="/" className="mb-6 block px-3 text-base font-semibold tracking-tight">
          AG-UI Console
        </Link>
        <Nav pending={pending} user={sessionView(caller)} />
      </aside>
      <main className="min-w-0 flex-1 p-8">{children}</main>
    </div>
  );
}
