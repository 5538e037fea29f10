import { history } from "@/lib/http/agui-routes";
import { route } from "@/lib/http/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = route((services) => history(services).listThreads);
