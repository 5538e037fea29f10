import type { Random } from "./random";

/**
 * Adversarial inputs for the fuzz suite: JSON of every type and shape, bodies that are not JSON,
 * odd content types, route parameters, query strings, Host, Origin and credentials. Everything is
 * bounded (a few MB at most) so that a pass stays quick; what it looks for is a wrong answer, not
 * a slow one.
 */

// ---- strings ------------------------------------------------------------------------------

/** Strings that have broken parsers, headers, file names, SQL or logs somewhere before. */
export const NASTY_STRINGS: readonly string[] = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\r\n",
  "line\r\nSet-Cookie: x=1",
  "\ud800",
  "x\udfffy",
  "\u202eevil\u202c",
  "\ufeff",
  "😀",
  "e\u0301",
  "ﬁ",
  "'",
  '"',
  '"; filename="x',
  "`",
  "\\",
  "%",
  "%E0",
  "%00",
  "%2e%2e%2f",
  "../",
  "../../etc/passwd",
  "..",
  ".",
  "/",
  "//",
  "?",
  "#",
  "&",
  "a b",
  "' OR 1=1 --",
  "'; DROP TABLE tools; --",
  "<script>alert(1)</script>",
  "${7*7}",
  "{{7*7}}",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "null",
  "undefined",
  "NaN",
  "true",
  "0",
  "-1",
  "1e309",
  "\t",
  "\u2028\u2029",
  "\u0085",
  "日本語",
  "مرحبا",
];

/** A string from NASTY_STRINGS, a random mix of awkward characters, or a long one. */
export function nastyString(r: Random): string {
  return r.weighted<string>([
    [6, () => r.pick(NASTY_STRINGS)],
    [3, () => mixedString(r, r.between(1, 40))],
    [1, () => r.pick(["a", "é", "😀", "\ud800", "%"]).repeat(r.pick([256, 1000, 5000, 70_000]))],
  ]);
}

const ALPHABET = [
  "a",
  "Z",
  "0",
  "_",
  "-",
  ".",
  ":",
  "/",
  "\\",
  "%",
  " ",
  "\u0000",
  "\n",
  "\r",
  '"',
  "'",
  "é",
  "😀",
  "\ud83d",
  "\ude00",
  "\u202e",
  "\u00a0",
  "+",
  "=",
  ";",
  ",",
];

/** `length` characters drawn from an alphabet of the awkward ones (lone surrogates included). */
export function mixedString(r: Random, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += r.pick(ALPHABET);
  return s;
}

// ---- JSON values --------------------------------------------------------------------------

/**
 * A marker for JSON number text that JavaScript cannot hold (1e309, -0, thirty digits): jsonText
 * writes what follows the marker as is. Use it only where a JSON value goes.
 */
const RAW = "\u0000raw:";
export const rawJson = (text: string): string => `${RAW}${text}`;

/** Number texts that break naive code: infinity, negative zero, more digits than a double holds. */
export const ODD_NUMBERS: readonly string[] = [
  "1e309",
  "-1e309",
  "-0",
  "0.0000000000000000000000000001",
  "123456789012345678901234567890",
  "9007199254740993",
  "1E400",
  "-9223372036854775809",
  "1.5",
  "0",
  "-1",
  "2147483648",
];

/** JSON text for `value`, with rawJson markers written out as number text. */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.includes("\\u0000raw:") ? text.replace(/"\\u0000raw:([^"]*)"/g, "$1") : text;
}

/** A random JSON value of any type, nested at most `depth` levels. */
export function jsonValue(r: Random, depth = 3): unknown {
  const leaf = (): unknown =>
    r.weighted<unknown>([
      [2, () => null],
      [2, () => r.chance(0.5)],
      [2, () => r.pick([0, 1, -1, 0.5, 42, 2 ** 53, -(2 ** 31), 1e21])],
      [2, () => rawJson(r.pick(ODD_NUMBERS))],
      [4, () => nastyString(r)],
    ]);
  if (depth <= 0) return leaf();
  return r.weighted<unknown>([
    [5, leaf],
    [2, () => Array.from({ length: r.int(5) }, () => jsonValue(r, depth - 1))],
    [
      3,
      () => {
        const o: Record<string, unknown> = {};
        for (let i = r.int(5); i > 0; i--) o[r.chance(0.7) ? nastyKey(r) : nastyString(r)] = jsonValue(r, depth - 1);
        return o;
      },
    ],
  ]);
}

/** Keys that reach an object's prototype or look like one of the console's own fields. */
const NASTY_KEYS = ["__proto__", "constructor", "prototype", "toString", "valueOf", "", " ", "a.b", "a/b", "$ref", "0", "length"];

function nastyKey(r: Random): string {
  return r.chance(0.5) ? r.pick(NASTY_KEYS) : r.pick(["id", "name", "args", "type", "value", "messages", "state", "approved"]);
}

/**
 * `value` changed the way a confused or hostile client would change it: a field dropped, a field
 * given a value of the wrong type, an unexpected field (prototype keys included), or a field
 * nested deep.
 */
export function mutate(r: Random, value: unknown): unknown {
  if (value === null || typeof value !== "object") return r.chance(0.5) ? jsonValue(r, 2) : value;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const key = keys.length ? r.pick(keys) : "x";
  const target = copy as Record<string, unknown>;
  r.weighted<void>([
    [3, () => void (target[key] = jsonValue(r, 2))],
    [2, () => void delete target[key]],
    [2, () => void (target[key] = mutate(r, target[key]))],
    [
      2,
      () => {
        // An own property named __proto__, as JSON.parse makes it (an object literal would set the prototype).
        if (Array.isArray(copy)) copy.push(jsonValue(r, 2));
        else Object.defineProperty(target, nastyKey(r), { value: jsonValue(r, 2), enumerable: true, configurable: true, writable: true });
      },
    ],
    [1, () => void (target[key] = rawJson(r.pick(ODD_NUMBERS)))],
  ]);
  return copy;
}

// ---- nesting --------------------------------------------------------------------------------

/** JSON text nested `depth` levels, built as text so nothing here recurses. */
export function deepJson(depth: number, kind: "array" | "object" | "mixed"): string {
  if (kind === "array") return "[".repeat(depth) + "]".repeat(depth);
  if (kind === "object") return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
  return '[{"a":'.repeat(Math.ceil(depth / 2)) + "0" + "}]".repeat(Math.ceil(depth / 2));
}

/** The nesting depths the suite tries: around the console's limit (64), and far past it. */
export const DEPTHS = [63, 64, 65, 100, 5_000, 50_000] as const;

// ---- bodies ---------------------------------------------------------------------------------

/** A request body as bytes or text, with a short label saying what kind of body it is. */
export interface FuzzBody {
  label: string;
  data: string | Uint8Array;
  /** Sent as a stream of several chunks (no content-length), as a slow or chunked client does. */
  chunked?: boolean;
}

/**
 * A body for an endpoint whose well-formed body is `valid` (undefined for endpoints that take
 * none): the valid one, a mutation of it, random JSON, deep nesting, big values, broken JSON,
 * bytes that are not UTF-8, or nothing.
 */
export function fuzzBody(r: Random, valid: unknown): FuzzBody {
  return r.weighted<FuzzBody>([
    [valid === undefined ? 0 : 10, () => ({ label: "valid", data: jsonText(valid) })],
    [valid === undefined ? 0 : 10, () => ({ label: "mutated", data: jsonText(mutate(r, mutate(r, valid))) })],
    [4, () => ({ label: "random json", data: jsonText(jsonValue(r, 4)) })],
    [
      3,
      () => {
        const depth = r.pick(DEPTHS);
        const kind = r.pick(["array", "object", "mixed"] as const);
        const deep = deepJson(depth, kind);
        // Deep inside a field of an otherwise plausible body, or the whole body.
        const data = valid && typeof valid === "object" && !Array.isArray(valid) && r.chance(0.6) ? wrapField(r, valid, deep) : deep;
        return { label: `nested ${depth} (${kind})`, data };
      },
    ],
    [2, () => bigBody(r, valid)],
    [3, () => ({ label: "broken json", data: r.pick(BROKEN_JSON) })],
    [
      2,
      () => {
        const text = jsonText(valid ?? jsonValue(r, 3));
        return { label: "truncated", data: text.slice(0, r.int(Math.max(1, text.length))) };
      },
    ],
    [1, () => ({ label: "empty", data: "" })],
    [1, () => ({ label: "whitespace", data: r.pick([" ", "\n\n", "\t \r\n"]) })],
    [2, () => ({ label: "not utf-8", data: notUtf8(r, valid) })],
    [1, () => ({ label: "bom", data: "\ufeff" + jsonText(valid ?? {}) })],
    [1, () => ({ label: "duplicate keys", data: duplicateKeys(valid) })],
  ]);
}

/** Texts JSON.parse refuses (or that only a lenient parser would take). */
const BROKEN_JSON = [
  "{",
  "}",
  "[1,]",
  "{'a':1}",
  '{"a":1,}',
  "nul",
  "NaN",
  "Infinity",
  "undefined",
  '{"a":"\\x41"}',
  '"\\ud800"',
  '{"a":1}{"b":2}',
  '{"a" 1}',
  "\u0000",
  "{}garbage",
  "--boundary\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--boundary--",
  "a=1&b=2",
  '{"a":"' + "\\".repeat(1001) + '"}',
  "[".repeat(10) + "]".repeat(9),
  "]]]]}}}}",
];

/** `valid`'s text with a field replaced by `inner` (JSON text). */
function wrapField(r: Random, valid: object, inner: string): string {
  const keys = Object.keys(valid);
  const key = keys.length ? r.pick(keys) : "x";
  const marker = "__fuzz_inner__";
  return jsonText({ ...(valid as Record<string, unknown>), [key]: marker }).replace(`"${marker}"`, inner);
}

/** Big in one direction: a long string, a long array, many keys; around and past the usual 1 MB limit. */
function bigBody(r: Random, valid: unknown): FuzzBody {
  const size = r.pick([60_000, 300_000, 1_100_000, 2_500_000]);
  const inner = r.weighted<string>([
    [3, () => JSON.stringify("x".repeat(size))],
    [2, () => "[" + "0,".repeat(size / 2 - 1) + "0]"],
    [1, () => "{" + Array.from({ length: size / 16 }, (_, i) => `"k${i}":${i}`).join(",") + "}"],
  ]);
  const data = valid && typeof valid === "object" && !Array.isArray(valid) ? wrapField(r, valid, inner) : inner;
  return { label: `big (${data.length} characters)`, data, chunked: r.chance(0.3) };
}

/** A JSON-looking body with bytes that are not UTF-8 (a lone continuation byte, an overlong slash, 0xFF). */
function notUtf8(r: Random, valid: unknown): Uint8Array {
  const text = new TextEncoder().encode(jsonText(valid ?? { a: "b" }));
  const bad = r.pick([[0xff], [0xc0, 0xaf], [0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]);
  const at = r.int(text.length + 1);
  return new Uint8Array([...text.subarray(0, at), ...bad, ...text.subarray(at)]);
}

/** The first key of `valid` written twice, the second time with another type. */
function duplicateKeys(valid: unknown): string {
  const text = jsonText(valid && typeof valid === "object" && !Array.isArray(valid) ? valid : { a: 1 });
  const first = /^\{"((?:[^"\\]|\\.)*)":/.exec(text);
  return first ? text.replace(/^\{/, `{"${first[1]}":[[["dup"]]],`) : text;
}

// ---- headers ----------------------------------------------------------------------------------

/** Content types for a JSON body: right, right with parameters, near misses and wrong ones. */
export function contentType(r: Random): string | undefined {
  return r.weighted<string | undefined>([
    [12, () => "application/json"],
    [2, () => r.pick(["application/json; charset=utf-8", "Application/JSON", "application/json ; charset=UTF-8"])],
    [
      4,
      () =>
        r.pick([
          "application/json; charset=latin1",
          "application/json-patch+json",
          "application/merge-patch+json",
          "application/jsonx",
          "text/json",
          "text/plain",
          "text/plain; charset=utf-8",
          "multipart/form-data; boundary=boundary",
          "application/x-www-form-urlencoded",
          "application/octet-stream",
          "",
          ";",
          "application/json, text/plain",
          "*/*",
          "application/json; boundary=" + "x".repeat(5000),
        ]),
    ],
    [1, () => undefined],
  ]);
}

/** Host headers: the console's own (most of the time), other local spellings, foreign ones, broken ones. */
export function hostHeader(r: Random, port = 3000): string | undefined {
  return r.weighted<string | undefined>([
    [10, () => `127.0.0.1:${port}`],
    [3, () => r.pick([`localhost:${port}`, "localhost", `[::1]:${port}`, "[::1]", "127.0.0.1", "LOCALHOST", `127.1.2.3:${port}`])],
    [1, () => r.pick(["console.test", `console.test:${port}`])],
    [
      3,
      () =>
        r.pick([
          "evil.example",
          `evil.example:${port}`,
          "[::ffff:127.0.0.1]",
          "[::ffff:7f00:1]:3000",
          "0.0.0.0",
          "127.0.0.1.",
          "127.0.0.1:3000:3000",
          "127.0.0.1:abc",
          "[::1",
          "::1",
          "localhost.",
          "localhost.evil.example",
          "a".repeat(300),
          "",
          "xn--80ak6aa92e.com",
          "169.254.169.254",
        ]),
    ],
    [1, () => undefined],
  ]);
}

/** Origin headers: none (most often), the console's own, another port, another site, "null", junk. */
export function originHeader(r: Random, port = 3000): string | undefined {
  return r.weighted<string | undefined>([
    [8, () => undefined],
    [3, () => r.pick([`http://127.0.0.1:${port}`, `http://localhost:${port}`])],
    [
      3,
      () =>
        r.pick([
          `http://127.0.0.1:${port + 1}`,
          `https://127.0.0.1:${port}`,
          "http://evil.example",
          "null",
          `http://[::1]:${port}`,
          "garbage",
          "http://",
          `http://127.0.0.1:${port}/path`,
          "file://",
          "",
        ]),
    ],
  ]);
}
