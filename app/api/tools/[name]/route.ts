import { route } from "@/lib/http/route";
import { toolRoutes } from "@/lib/http/tool-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = route((services) => toolRoutes(services).get);
export const PATCH = route((services) => toolRoutes(services).update);
export const DELETE = route((services) => toolRoutes(services).remove);
