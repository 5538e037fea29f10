import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = route((api) => api.a2a.post);
export const GET = route((api) => api.a2a.get);
export const OPTIONS = route((api) => api.a2a.preflight);
