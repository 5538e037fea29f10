/**
 * A stretch of Markdown that renders on its own exactly as it does within the whole text: either
 * whole blocks, or one plain paragraph cut into parts at spaces (to render as one paragraph, a space
 * between parts).
 */
export type MarkdownSection = { kind: "blocks"; text: string } | { kind: "paragraph"; parts: string[] };

/** Parts of a long plain paragraph are about this long: the last one is parsed again as text streams in. */
export const PART_LENGTH = 1024;

// After a blank line, these start something that may continue what came before (an item of the
// same list, an indented continuation) or that may run past blank lines (HTML).
const CONTINUES = /^(?:[\s\-*+<]|\d)/;
// Link reference and footnote definitions reach across the whole text.
const DEFINITION = /^ {0,3}\[[^\]]*\]:/m;
const HTML_LINE = /^ {0,3}</;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
// Characters that may open or close inline syntax (emphasis, code, links, HTML, entities, escapes, tables).
const INLINE_SYNTAX = /[\\`*_~[\]<>!&|]/;
const LETTER = /\p{L}/u;

/**
 * Cuts `text` into sections whose renderings, one after another, are the rendering of the whole:
 * between blocks at blank lines where nothing can continue across, and long paragraphs of plain text
 * (every line starting with a letter) at spaces before letters, up to their first inline syntax.
 * The cuts depend only on the text before them (and one character after), so as text streams in,
 * every section but the last stays the same. A text with link definitions is one section.
 */
export function markdownSections(text: string): MarkdownSection[] {
  if (DEFINITION.test(text)) return [{ kind: "blocks", text }];
  const sections: MarkdownSection[] = [];
  const lines = text.split("\n");
  let start = 0;
  let offset = 0;
  let fence: { marker: string; length: number } | undefined;
  let html = false;
  let previousBlank = false;
  for (const line of lines) {
    if (offset > start && previousBlank && !fence && !html && line !== "" && !CONTINUES.test(line)) {
      sections.push(...blockSections(text.slice(start, offset)));
      start = offset;
    }
    const fenceLine = FENCE.exec(line);
    if (fence) {
      if (fenceLine && fenceLine[1]![0] === fence.marker && fenceLine[1]!.length >= fence.length && fenceLine[2]!.trim() === "")
        fence = undefined;
    } else if (fenceLine && !(fenceLine[1]![0] === "`" && fenceLine[2]!.includes("`"))) {
      fence = { marker: fenceLine[1]![0]!, length: fenceLine[1]!.length };
    } else if (HTML_LINE.test(line)) {
      html = true;
    }
    previousBlank = line.trim() === "";
    offset += line.length + 1;
  }
  sections.push(...blockSections(text.slice(start)));
  return sections;
}

/** One stretch between cuts at blank lines: a plain paragraph cut into parts, or blocks as they are. */
function blockSections(block: string): MarkdownSection[] {
  const body = block.replace(/\n+$/, "");
  if (body.length <= PART_LENGTH * 2 || !body.split("\n").every((line) => LETTER.test(line.charAt(0))))
    return [{ kind: "blocks", text: block }];
  const syntaxAt = body.search(INLINE_SYNTAX);
  const plainEnd = syntaxAt === -1 ? body.length : syntaxAt;
  const parts: string[] = [];
  let from = 0;
  for (let at = PART_LENGTH; at < plainEnd; at++) {
    if (at - from < PART_LENGTH) at = from + PART_LENGTH;
    if (at >= plainEnd) break;
    if (body[at] === " " && body[at - 1] !== " " && body[at - 1] !== "\n" && LETTER.test(body.charAt(at + 1))) {
      parts.push(body.slice(from, at));
      from = at + 1;
    }
  }
  parts.push(body.slice(from));
  return [{ kind: "paragraph", parts }];
}
