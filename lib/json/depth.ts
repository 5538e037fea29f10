// Nesting limits for everything a caller or a remote party controls. JSON.parse itself is iterative
// and copes with any depth; what breaks is the recursion that follows (stringify, structuredClone,
// schema walkers, ajv). On Node 20 a stack overflow that lands inside V8's RegExp compiler aborts the
// whole process instead of throwing, so depth is refused before anything recursive runs.

/** Request bodies and tool arguments: levels of `[`/`{` nesting a caller may send. */
export const MAX_INPUT_DEPTH = 64;

/** OpenAPI documents and remote API responses (their values are stored and stringified later). */
export const MAX_DOCUMENT_DEPTH = 128;

/** The YAML bound over-counts (indentation, indicators), so its limit is looser than the JSON one. */
export const MAX_YAML_DEPTH_BOUND = 256;

const QUOTE = 34; // "
const BACKSLASH = 92; // \
const OPEN_ARRAY = 91; // [
const OPEN_OBJECT = 123; // {
const CLOSE_ARRAY = 93; // ]
const CLOSE_OBJECT = 125; // }

/**
 * True once the `[`/`{` nesting of JSON `text`, counted outside strings, passes `limit`. It stops at
 * the first level past the limit, so a megabyte of brackets costs a few characters. Malformed JSON
 * is not judged here: JSON.parse refuses it afterwards.
 */
export function jsonTextDepthExceeds(text: string, limit: number): boolean {
  return new JsonDepthCounter(limit).feed(text);
}

/**
 * jsonTextDepthExceeds over a text that arrives in pieces (a body as it is read): `feed` each
 * piece in order; it answers true once the nesting so far has passed the limit (`exceeded`), and
 * keeps answering true. A piece may end anywhere, inside a string or after a backslash.
 */
export class JsonDepthCounter {
  private depth = 0;
  private inString = false;
  /** The previous piece ended on a backslash inside a string: this piece's first character is escaped. */
  private escaped = false;
  private passed = false;

  constructor(private readonly limit: number) {}

  get exceeded(): boolean {
    return this.passed;
  }

  feed(text: string): boolean {
    if (this.passed) return true;
    const { limit } = this;
    let { depth, inString } = this;
    let i = this.escaped ? 1 : 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === BACKSLASH)
          i++; // the escaped character cannot end the string
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++depth > limit) return (this.passed = true);
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
    }
    // The loop steps past the end by one when the last character is a backslash in a string.
    this.escaped = i > text.length;
    this.depth = depth;
    this.inString = inString;
    return false;
  }
}

const SPACE = 32;
const TAB = 9;
const DASH = 45;
const QUESTION = 63;
const HASH = 35;
const APOSTROPHE = 39;
const COLON = 58;
const COMMA = 44;
/** Characters after which a quoted scalar may begin. */
const BEFORE_QUOTED = new Set([SPACE, COLON, DASH, OPEN_ARRAY, OPEN_OBJECT, COMMA, QUESTION]);

/**
 * True when an upper bound of the nesting of YAML `text` passes `limit`. The bound is never below
 * the real depth: each line counts one level, plus its indentation, plus its leading `- `/`? `
 * indicators, plus the flow (`[`/`{`) depth carried over from earlier lines. Quotes are honoured only
 * where a quoted scalar can start and only within their line, so an apostrophe in prose ("don't")
 * cannot hide brackets that follow; comments are skipped.
 */
export function yamlDepthBoundExceeds(text: string, limit: number): boolean {
  let flow = 0;
  for (let start = 0; start < text.length;) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let i = start;
    while (i < end && text.charCodeAt(i) === SPACE) i++;
    let level = 1 + i - start;
    // Compact nesting on one line: "- - x", "? x".
    for (;;) {
      const c = text.charCodeAt(i);
      const next = i + 1 < end ? text.charCodeAt(i + 1) : SPACE;
      if ((c !== DASH && c !== QUESTION) || next !== SPACE) break;
      level++;
      i += 2;
      while (i < end && text.charCodeAt(i) === SPACE) i++;
    }
    if (level + flow > limit) return true;
    for (let previous = SPACE; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === HASH && (i === start || text.charCodeAt(i - 1) === SPACE || text.charCodeAt(i - 1) === TAB)) break;
      if ((c === QUOTE || c === APOSTROPHE) && BEFORE_QUOTED.has(previous)) {
        i = quotedScalarEnd(text, i, end);
        previous = c;
        continue;
      }
      if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++flow + level > limit) return true;
      } else if ((c === CLOSE_ARRAY || c === CLOSE_OBJECT) && flow > 0) flow--;
      if (c !== SPACE) previous = c;
    }
    start = end + 1;
  }
  return false;
}

/** Index of the closing quote of the scalar opened at `open` (or `end` when the line ends first). */
function quotedScalarEnd(text: string, open: number, end: number): number {
  const quote = text.charCodeAt(open);
  for (let i = open + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (quote === QUOTE && c === BACKSLASH) i++;
    else if (c === quote) {
      if (quote === APOSTROPHE && text.charCodeAt(i + 1) === APOSTROPHE)
        i++; // '' is an escaped '
      else return i;
    }
  }
  return end;
}

/**
 * True once arrays and objects inside `value` nest more than `limit` deep (`{}` is one level, a
 * scalar none). Iterative, so any depth is safe to ask about. A subtree reached again through
 * another path is walked again only when reached deeper than before, so shared subtrees cost
 * at most `limit` walks each and a cycle simply counts as too deep.
 */
export function valueDepthExceeds(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== "object") return false;
  // Most values a tool is called with are one level deep (`{}`, strings and numbers): answered
  // without the walk's map and stack, which every tool call would otherwise make.
  if (limit >= 1 && !childrenOf(value).some(isContainer)) return false;
  const deepestSeen = new Map<object, number>();
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    const seen = deepestSeen.get(node);
    if (seen !== undefined && seen >= depth) continue;
    deepestSeen.set(node, depth);
    for (const child of childrenOf(node)) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The values an array or object holds (its own fields'). */
function childrenOf(node: object): unknown[] {
  return Array.isArray(node) ? node : Object.values(node);
}

/** An array or object: a value that adds a level. */
function isContainer(value: unknown): value is object {
  return value !== null && typeof value === "object";
}
