import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const DELETE = route((api) => api.tokens.revoke);
