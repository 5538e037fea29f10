import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = route((api) => api.mcp.post);
export const GET = route((api) => api.mcp.get);
export const DELETE = route((api) => api.mcp.delete);
export const OPTIONS = route((api) => api.mcp.preflight);
