import { renderToStaticMarkup } from "react-dom/server";
import ReactMarkdown from "react-markdown";
import { describe, expect, it } from "vitest";
import { Markdown, MARKDOWN_OPTIONS } from "@/components/common/markdown";
import { markdownSections, PART_LENGTH } from "@/components/common/markdown-sections";

// The sections must render exactly as the whole text parsed at once (what the chat showed before it
// parsed in sections). Blocks rendered apart lose only the newline text nodes between them,  and a long
// paragraph is in a block span (which the browser splits into more, each starting a line).
function sectioned(text: string): string {
  return renderToStaticMarkup(<Markdown text={text} />)
    .replace(/^<div[^>]*>|<\/div>$/g, "")
    .replace(/<span class="block">|<\/span>/g, "")
    .replace(/>\n+</g, "><");
}

function whole(text: string): string {
  return renderToStaticMarkup(<ReactMarkdown {...MARKDOWN_OPTIONS}>{text}</ReactMarkdown>).replace(/>\n+</g, "><");
}

const words = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ["agents", "call", "tools", "and", "people", "approve"][(from + i) % 6]).join(" ");

const DOCUMENT = [
  "# Title",
  words(600),
  `${words(300)} *emphasis that runs ${words(400)} across a long stretch* and \`code\` then ${words(500)}`,
  "1. first\n\n2. second, loose\n\n   continued inside the item\n\n3. third",
  "- tight\n- list",
  "```js\nconst a = 1;\n\nplain line inside the fence\n```",
  "A link to https://example.com and [a page](https://example.com/x) and [bad](javascript:alert(1)).",
  "> a quote\n\n> another",
  "| a | b |\n| - | - |\n| 1 | 2 |",
  `${words(500)}\n${words(10)}\n===`,
  "    indented code\n\nLast words  \nwith a hard break.",
  "<!-- a comment\n\nthat spans a blank line -->",
  "After the comment.",
].join("\n\n");

describe("Markdown in sections", () => {
  it("renders a 20,000-word paragraph as the whole text, in parts", () => {
    const text = `${words(20_000)}.`;
    const sections = markdownSections(text);
    expect(sections).toHaveLength(1);
    expect(sections[0]!.kind === "paragraph" && sections[0]!.parts.length).toBeGreaterThan(100);
    expect(sectioned(text)).toBe(whole(text));
  });

  it("renders headings, lists, fences, HTML, quotes, tables and setext headings as the whole text", () => {
    expect(markdownSections(DOCUMENT).length).toBeGreaterThan(5);
    expect(sectioned(DOCUMENT)).toBe(whole(DOCUMENT));
  });

  it("renders model text safely: no raw HTML, http(s) links only, each opened apart without referrer", () => {
    const html = sectioned(`${DOCUMENT}\n\nSome <b>bold</b> and [mail](mailto:a@example.com).\n\n<script>alert(1)</script>`);
    expect(html).not.toContain("javascript:");
    expect(html).not.toMatch(/<script|<b>|<!--/);
    expect(html).toContain('<a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">a page</a>');
    expect(html).toContain('<a href="mailto:a@example.com" target="_blank" rel="noopener noreferrer nofollow">mail</a>');
    expect(html).toContain('<a href="" target="_blank" rel="noopener noreferrer nofollow">bad</a>');
  });

  it("keeps emphasis that spans a cut's place in one part", () => {
    const text = `${words(400)} *${words(800)}* ${words(400)}`;
    expect(sectioned(text)).toBe(whole(text));
    expect(sectioned(text)).toContain("<em>");
  });

  it("does not cut a text with link definitions", () => {
    const text = `${words(40)}\n\nSee [the docs][docs].\n\n${words(900)}\n\n[docs]: https://example.com/docs`;
    expect(markdownSections(text)).toHaveLength(1);
    expect(sectioned(text)).toBe(whole(text));
  });

  it("as text streams in, renders every prefix as the whole and keeps every section but the last as it will be", () => {
    const final = markdownSections(DOCUMENT);
    for (let end = 1; end < DOCUMENT.length; end += 331) {
      const prefix = DOCUMENT.slice(0, end);
      expect(sectioned(prefix)).toBe(whole(prefix));
      const settled = markdownSections(prefix).slice(0, -1);
      expect(final.slice(0, settled.length)).toEqual(settled);
    }
    const answer = `${words(3000)}.`;
    const [done] = markdownSections(answer);
    for (let end = 3000; end < answer.length; end += 1111) {
      const [growing] = markdownSections(answer.slice(0, end));
      if (growing!.kind !== "paragraph" || done!.kind !== "paragraph") throw new Error("a plain paragraph is cut into parts");
      expect(done!.parts.slice(0, growing!.parts.length - 1)).toEqual(growing!.parts.slice(0, -1));
    }
  });

  it("parts are about PART_LENGTH long", () => {
    const [section] = markdownSections(words(5000));
    expect(section!.kind).toBe("paragraph");
    if (section!.kind !== "paragraph") return;
    for (const part of section!.parts.slice(0, -1)) expect(part.length).toBeGreaterThanOrEqual(PART_LENGTH);
    for (const part of section!.parts.slice(0, -1)) expect(part.length).toBeLessThan(PART_LENGTH + 20);
  });
});
