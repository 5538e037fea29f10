// A baseline for `npm run bench` (bench/support/bench-routes.ts): 404 unless CONSOLE_BENCH_ROUTES=1.
import { bareMcpHandler } from "@/bench/support/bare-sdk";
import { benchRoute } from "@/bench/support/bench-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = benchRoute(bareMcpHandler);
