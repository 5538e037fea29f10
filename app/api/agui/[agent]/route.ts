import { agui } from "@/lib/http/agui-routes";
import { route } from "@/lib/http/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = route((services) => agui(services).run);
