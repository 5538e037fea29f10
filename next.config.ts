import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon: load it from node_modules at run time, never bundle it.
  serverExternalPackages: ["better-sqlite3"],
  poweredByHeader: false,
  // The build checks the app's own code; tests, specs and benches are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
  reactStrictMode: true,
  // On every response; proxy.ts gives pages their own CSP (with a nonce) in place of this one's.
  headers: async () => [{ source: "/:path*", headers: [...SECURITY_HEADERS] }],
};

export default nextConfig;
