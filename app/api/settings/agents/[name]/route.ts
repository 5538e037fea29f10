import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const PUT = route((api) => api.settings.updateAgent);
export const DELETE = route((api) => api.settings.removeAgent);
