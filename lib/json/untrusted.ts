import type { z } from "zod";

/**
 * `schema.safeParse(value)` for a value that came from outside, which never throws. zod 4 runs a
 * string's or array's length checks on any value with a `length` member, even after the type check
 * failed: `{ "length": { "toString": 1 } }` where a string is expected makes the comparison throw
 * a TypeError out of safeParse. Such a value is not what the schema takes, so it fails like one.
 */
export function parseUntrusted<S extends z.ZodType>(
  schema: S,
  value: unknown,
): { success: true; data: z.output<S> } | { success: false; issues: z.core.$ZodIssue[] } {
  try {
    const parsed = schema.safeParse(value);
    return parsed.success ? { success: true, data: parsed.data } : { success: false, issues: parsed.error.issues };
  } catch {
    return {
      success: false,
      issues: [{ code: "custom", path: [], message: "has a value of a type this field does not take", input: value }],
    };
  }
}
