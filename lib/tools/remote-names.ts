import { createHash } from "node:crypto";

/** Longest tool name the console registers (what the model APIs it exports to accept). */
export const MAX_TOOL_NAME = 64;

/**
 * An import's name prefix as it goes before every tool name: characters outside `[A-Za-z0-9_]`
 * become `_`. Returns the reason it cannot be used instead when it is over 32 characters or does
 * not start with a letter or `_`.
 */
export function namePrefix(raw: string): { prefix: string } | { problem: string } {
  const prefix = raw.trim().replace(/[^A-Za-z0-9_]/g, "_");
  if (prefix.length > 32) return { problem: "The name prefix is longer than 32 characters" };
  if (prefix && !/^[A-Za-z_]/.test(prefix)) return { problem: "The name prefix must start with a letter or _" };
  return { prefix };
}

/**
 * The local name of a remote tool (an MCP tool, an A2A skill): `prefix` + the remote name reduced
 * to `[A-Za-z0-9_-]` (`fallback` when nothing is left), starting with a letter or _, at most
 * MAX_TOOL_NAME characters (a long one keeps a suffix derived from the remote name).
 */
export function localToolName(prefix: string, remote: string, fallback: string): string {
  let name = remote.replace(/[^A-Za-z0-9_-]/g, "_") || fallback;
  if (!prefix && !/^[A-Za-z_]/.test(name)) name = `_${name}`;
  const full = `${prefix}${name}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const suffix = `_${shortHash(remote)}`;
  return `${full.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
}

/** `name`, or, when two remote names reduce to it, a variant with a suffix derived from `remote`. */
export function uniqueLocalName(name: string, remote: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 0; ; n++) {
    const suffix = `_${shortHash(`${remote} ${n}`)}`;
    const candidate = `${name.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}
