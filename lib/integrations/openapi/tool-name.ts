import { createHash } from "node:crypto";

const MAX = 64;

/**
 * The tool name an operation becomes: its operationId, else method and path
 * (`GET /pets/{id}` → `get_pets_by_id`), reduced to `[A-Za-z0-9_-]`, prefixed, at most 64 characters.
 */
export function operationToolName(prefix: string, method: string, path: string, operationId?: string): string {
  const raw = operationId?.trim() || `${method}_${path.replace(/\{([^}]+)\}/g, "by_$1")}`;
  let name = raw
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .replace(/_{2,}/g, "_")
    .replace(/^[_-]+|[_-]+$/g, "");
  if (!name) name = method;
  if (!prefix && !/^[A-Za-z_]/.test(name)) name = `op_${name}`;
  return fit(prefix, name, raw);
}

/** `name` made unique among `taken` with a suffix derived from the operation, so reordering a document keeps names. */
export function uniqueToolName(name: string, method: string, path: string, taken: Set<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 0; ; n++) {
    const suffix = `_${shortHash(`${method} ${path} ${n}`)}`;
    const candidate = `${name.slice(0, MAX - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function fit(prefix: string, name: string, raw: string): string {
  const full = `${prefix}${name}`;
  if (full.length <= MAX) return full;
  const suffix = `_${shortHash(raw)}`;
  return `${full.slice(0, MAX - suffix.length)}${suffix}`;
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}
