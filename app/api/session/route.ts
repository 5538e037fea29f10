import { route } from "@/lib/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = route((api) => api.session.get);
export const POST = route((api) => api.session.signIn);
export const DELETE = route((api) => api.session.signOut);
