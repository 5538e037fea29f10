import { route } from "@/lib/http/route";
import { sourceRoutes } from "@/lib/http/source-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const DELETE = route((services) => sourceRoutes(services).remove);
