// A baseline for `npm run bench` (bench/support/bench-routes.ts): 404 unless CONSOLE_BENCH_ROUTES=1.
import { benchRoute, emptyHandler } from "@/bench/support/bench-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
const empty = benchRoute(emptyHandler);
export const GET = empty;
export const POST = empty;
