import type { RegExpEngine } from "ajv/dist/types";
import { RE2JS } from "re2js";

// Patterns in tool schemas come from imported documents and remote servers. V8's RegExp backtracks
// (`^(a+)+$` on 29 characters held the event loop for seconds), so ajv runs them on re2js, a pure-JS
// port of RE2 whose matching time is linear in the input. RE2 has no lookaround or backreferences;
// such patterns are found at import or definition time (patternProblem) rather than at the first call.

/**
 * ajv's `code.regExp`: compiles `pattern` with re2js. ajv caches compiled patterns under the
 * object's toString(), so each one names its own pattern; a shared name would make every pattern
 * of the instance reuse the first one compiled. Throws RE2JSSyntaxException for a pattern RE2 refuses.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/re2js` };
  },
  // Only ajv's standalone code generation reads this; the console never generates standalone code.
  { code: "linearRegExp" },
);

/** Why `pattern` cannot be checked by the console, in words for an operator; undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  try {
    // Schemas are ECMAScript patterns: one the JS engine refuses is not a pattern at all.
    new RegExp(pattern, "u");
  } catch (error) {
    return `is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`;
  }
  try {
    linearRegExp(pattern, "u");
    return undefined;
  } catch (error) {
    return `${unsupportedFeature(pattern, error instanceof Error ? error.message : String(error))}, which the console's linear-time regex engine does not support`;
  }
}

function unsupportedFeature(pattern: string, message: string): string {
  if (pattern.includes("(?=")) return "uses a lookahead (?=";
  if (pattern.includes("(?!")) return "uses a negative lookahead (?!";
  if (pattern.includes("(?<=") || pattern.includes("(?<!")) return "uses a lookbehind";
  if (/\\[1-9]|\\k</.test(pattern)) return "uses a backreference";
  if (/repeat count/.test(message)) return "repeats a part more than 1,000 times";
  return `is refused (${message.replace(/^error parsing regexp: /, "")})`;
}
