import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = route((api) => api.threads.runStream);
