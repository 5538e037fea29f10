import { route } from "@/lib/http/route";
import { toolCallRoutes } from "@/lib/http/tool-call-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = route((services) => toolCallRoutes(services).pin);
