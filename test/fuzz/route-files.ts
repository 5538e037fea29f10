import fs from "node:fs";
import path from "node:path";
import type { Handler } from "@/lib/http/handler";

const ROOT = path.resolve(__dirname, "../..");
const API_DIR = path.join(ROOT, "app", "api");

/** The methods a Next route file may export. */
export const ROUTE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** One exported method of one route file: what Next calls for `METHOD path`. */
export interface RouteExport {
  /** "POST /api/tools/[name]/calls" */
  key: string;
  method: string;
  /** The URL path with Next's `[param]` segments, e.g. "/api/tools/[name]/calls". */
  path: string;
  /** The file, relative to the project root. */
  file: string;
  handler: Handler;
}

/** Every route.ts under app/api, relative to app/ ("api/tools/[name]/route.ts"). */
function routeFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...routeFilesUnder(full));
    else if (entry.name === "route.ts") found.push(full);
  }
  return found.sort();
}

/**
 * Every method exported by every route file under app/api, imported as Next imports it. The
 * handlers reach the process's services (lib/services getServices), so set those first.
 */
export async function loadRouteExports(): Promise<RouteExport[]> {
  const exports: RouteExport[] = [];
  for (const full of routeFilesUnder(API_DIR)) {
    const urlPath = "/" + path.relative(path.join(ROOT, "app"), path.dirname(full)).split(path.sep).join("/");
    const module = (await import(full)) as Record<string, unknown>;
    for (const method of ROUTE_METHODS) {
      const handler = module[method];
      if (typeof handler === "function")
        exports.push({ key: `${method} ${urlPath}`, method, path: urlPath, file: path.relative(ROOT, full), handler: handler as Handler });
    }
  }
  return exports;
}
