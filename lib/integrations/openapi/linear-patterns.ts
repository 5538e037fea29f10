import { unsupportedPatterns, type UnsupportedPattern } from "../../tools/schema";
import type { JsonSchema } from "../../tools/spec";

/**
 * `schema` without the patterns the console's linear-time engine cannot run (lookaround,
 * backreferences, huge repeats), and what was dropped. The console checks arguments before the
 * API does, so checking less is safe: the API still applies its own pattern. A dropped
 * `patternProperties` key also drops `additionalProperties` and `unevaluatedProperties` beside it,
 * since which properties count as "additional" depends on the key. The input is not modified
 * (the converter shares component schemas between tools): objects on the way to a dropped pattern
 * are copied.
 */
export function dropUnsupportedPatterns(schema: JsonSchema): { schema: JsonSchema; dropped: UnsupportedPattern[] } {
  const dropped = unsupportedPatterns(schema);
  if (!dropped.length) return { schema, dropped };
  const copies = new Set<object>();
  const copyOf = (value: unknown): Record<string, unknown> | unknown[] => {
    const copy = Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) };
    copies.add(copy);
    return copy;
  };
  const root = copyOf(schema) as JsonSchema;
  for (const { keys } of dropped) {
    let node: Record<string, unknown> = root;
    const last = keys[keys.length - 1]!;
    const inPatternProperties = keys[keys.length - 2] === "patternProperties";
    const parentKeys = inPatternProperties ? keys.slice(0, -2) : keys.slice(0, -1);
    for (const key of parentKeys) {
      const child = node[key];
      if (child === null || typeof child !== "object") break;
      if (!copies.has(child)) node[key] = copyOf(child);
      node = node[key] as Record<string, unknown>;
    }
    if (!inPatternProperties) {
      delete node.pattern;
      continue;
    }
    const patterns = { ...(node.patternProperties as Record<string, unknown>) };
    delete patterns[last];
    node.patternProperties = patterns;
    delete node.additionalProperties;
    delete node.unevaluatedProperties;
  }
  return { schema: root, dropped };
}
