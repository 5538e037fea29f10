import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = route((api) => api.tokens.createEmbed);
