import { inbox } from "@/lib/http/inbox-routes";
import { route } from "@/lib/http/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = route((services) => inbox(services).decideMany);
