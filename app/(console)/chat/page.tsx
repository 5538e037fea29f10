import { randomUUID } from "node:crypto";
import { redirect } from "next/navigation";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/** /chat opens a new thread with the default agent, ready to type in; the side column picks another agent. */
export default async function ChatIndexPage() {
  redirect(`/chat/${randomUUID()}?agent=${encodeURIComponent((await getServices()).agents.default.info.name)}`);
}
