import fs from "node:fs";
import path from "node:path";

/**
 * Create `dir` and its missing parents one level at a time. Node 20's recursive mkdirSync loops
 * forever where mkdir answers ENOENT for a parent that exists (under /proc, say).
 */
export function ensureDirectory(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let current = dir; !fs.existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder, mode === undefined ? undefined : { mode });
    } catch (error) {
      if (!((error as NodeJS.ErrnoException).code === "EEXIST" && fs.statSync(folder).isDirectory())) throw error;
    }
  }
}
