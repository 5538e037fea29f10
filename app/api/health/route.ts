import { healthHandler } from "@/lib/http/health";
import { route } from "@/lib/http/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = route(healthHandler);
