import type { NextConfig } from "next";
import { PHASE_PRODUCTION_SERVER } from "next/constants";
import { SECURITY_HEADERS } from "./lib/http/security-headers";
import { buildWidget } from "./scripts/build-widget";

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon: load it from node_modules at run time, never bundle it.
  serverExternalPackages: ["better-sqlite3", "pg"],
  poweredByHeader: false,
  // The build checks the app's own code; tests, specs and benches are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
  reactStrictMode: true,
  // On every response; proxy.ts gives pages their own CSP (with a nonce) in place of this one's.
  headers: async () => [{ source: "/:path*", headers: [...SECURITY_HEADERS] }],
};

// /embed/widget.js (the script-tag chat) is bundled from lib/client/widget whenever Next loads this
// file: `next build` and `next dev` write it afresh, a production server only when it is missing.
export default async function config(phase: string): Promise<NextConfig> {
  await buildWidget({ ifMissing: phase === PHASE_PRODUCTION_SERVER });
  return nextConfig;
}
