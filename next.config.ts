import type { NextConfig } from "next";
import { PHASE_PRODUCTION_SERVER } from "next/constants";
import { SECURITY_HEADERS } from "./lib/http/security-headers";
import { buildWorkerBundles } from "./lib/workers/worker-bundle";
import { buildWidget } from "./scripts/build-widget";

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon: load it from node_modules at run time, never bundle it.
  // esbuild (a native binary) builds the worker bundles when they are older than their sources.
  serverExternalPackages: ["better-sqlite3", "pg", "esbuild"],
  poweredByHeader: false,
  // The build checks the app's own code; tests, specs and benches are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
  reactStrictMode: true,
  // On every response; proxy.ts gives pages their own CSP (with a nonce) in place of this one's.
  headers: async () => [{ source: "/:path*", headers: [...SECURITY_HEADERS] }],
};

// /embed/widget.js (the script-tag chat) and the worker threads' bundles (.workers/, see
// lib/workers/worker-bundle.ts) are built whenever Next loads this file: `next build` and
// `next dev` write them afresh, a production server only when they are missing.
export default async function config(phase: string): Promise<NextConfig> {
  const ifMissing = phase === PHASE_PRODUCTION_SERVER;
  await Promise.all([buildWidget({ ifMissing }), buildWorkerBundles({ ifMissing })]);
  return nextConfig;
}
