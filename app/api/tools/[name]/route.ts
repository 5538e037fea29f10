import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = route((api) => api.tools.get);
export const PATCH = route((api) => api.tools.update);
export const DELETE = route((api) => api.tools.remove);
