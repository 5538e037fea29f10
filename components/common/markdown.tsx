"use client";

import { Fragment, memo, useEffect, useLayoutEffect, useRef, useState } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";
import { markdownSections } from "./markdown-sections";

const PARAGRAPH_ONLY = ["p"];
// What Markdown may turn into something other than its text: inline syntax, hard breaks, literal autolinks.
const NOT_PLAIN = /[\\`*_~[\]<>!&|@]| {2}\n|www\.|:\/\//i;
/** A paragraph's last block is split once its plain text is this long. */
const BLOCK_LENGTH = 2048;
/** Where LongParagraph's blocks begin, and the text up to the last of them. */
const NOT_CUT: { at: readonly number[]; text: string } = { at: [], text: "" };

function safeUrl(url: string): string {
  return /^(https?:|mailto:)/i.test(url) ? url : "";
}

/** How model text is rendered, whole or in parts: GFM, raw HTML dropped, http(s) and mailto links only, opened apart. */
export const MARKDOWN_OPTIONS = {
  remarkPlugins: [remarkGfm],
  skipHtml: true,
  urlTransform: safeUrl,
  components: {
    a: ({ children, href }) => (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ),
  } satisfies Components,
} satisfies Options;

/**
 * Markdown from a model, rendered safely: raw HTML in the text is dropped (never injected), links
 * open in a new tab without referrer, and only http(s) and mailto links are kept. The text is parsed
 * in sections (see markdownSections), each once: as a long answer streams in, only its last section
 * is parsed again, and a long paragraph is laid out again only from its last lines (LongParagraph).
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="prose-chat text-sm leading-6 [&_a]:text-indigo-700 [&_a]:underline [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_li]:ml-5 [&_ol]:list-decimal [&_p]:my-1 [&_pre]:my-2 [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-slate-900 [&_pre]:p-3 [&_pre]:text-slate-100 [&_pre_code]:bg-transparent [&_ul]:list-disc">
      {markdownSections(text).map((section, i) =>
        section.kind === "blocks" ? <MarkdownBlocks key={i} text={section.text} /> : <LongParagraph key={i} parts={section.parts} />,
      )}
    </div>
  );
}

/** A little of what answers hold, one piece per idle moment (MarkdownWarmUp). */
const WARM_UP_PIECES = [
  "Some words.",
  "# Title\n\nSome **bold**, _emphasis_, `code` and a [link](https://example.com) at www.example.com.",
  "- one\n- two\n\n1. first\n2. second\n\n> a quote",
  "```js\nconst x = 1;\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |",
];

let warmedUp = false;

/** The performance mark MarkdownWarmUp sets once its last piece is rendered. */
export const MARKDOWN_WARMED_MARK = "agui-console:markdown-warmed";

/**
 * Renders a few pieces of Markdown out of sight, one each time the browser is idle, once per page;
 * then nothing. The parser's code is compiled on its first use: the first streamed answer's first
 * render, in a chat with no answer on screen yet, was a task of 35-60 ms (a long task, over 50 ms,
 * when the machine was busy; `npm run bench -- browser`). This pays it in idle time, in tasks short
 * enough not to hold up typing.
 */
export function MarkdownWarmUp() {
  // The piece on screen: -1 before the first, past the last once done (or when an earlier mount
  // has had its first idle moment: a second mount before that warms up again, which costs nothing
  // but a few renders).
  const [piece, setPiece] = useState(warmedUp ? WARM_UP_PIECES.length : -1);
  useEffect(() => {
    if (piece >= WARM_UP_PIECES.length) return;
    const next = () => {
      warmedUp = true;
      // Effects run after the commit: the last piece has been rendered.
      if (piece === WARM_UP_PIECES.length - 1) performance.mark(MARKDOWN_WARMED_MARK);
      setPiece(piece + 1);
    };
    // Safari has no requestIdleCallback.
    if (typeof requestIdleCallback !== "function") {
      const timer = setTimeout(next, 200);
      return () => clearTimeout(timer);
    }
    const handle = requestIdleCallback(next, { timeout: 2000 });
    return () => cancelIdleCallback(handle);
  }, [piece]);
  const text = WARM_UP_PIECES[piece];
  return text === undefined ? null : (
    <div hidden>
      <Markdown text={text} />
    </div>
  );
}

const MarkdownBlocks = memo(function MarkdownBlocks({ text }: { text: string }) {
  return <ReactMarkdown {...MARKDOWN_OPTIONS}>{text}</ReactMarkdown>;
});

/** A part of a paragraph: its content without the paragraph around it. */
const MarkdownInline = memo(function MarkdownInline({ text }: { text: string }) {
  return (
    <ReactMarkdown {...MARKDOWN_OPTIONS} disallowedElements={PARAGRAPH_ONLY} unwrapDisallowed>
      {text}
    </ReactMarkdown>
  );
});

/**
 * A long paragraph, its parts one after another with a space between. The browser lays a paragraph
 * out again as a whole whenever its text changes (for 100,000 characters, most of a frame), so the
 * plain text it starts with is held in blocks that each begin where a line began: the lines wrap as
 * in one paragraph, and a growing text makes the browser lay out only the last block. A change of
 * width puts the text back in one block, as the lines then wrap elsewhere.
 */
function LongParagraph({ parts }: { parts: string[] }) {
  const plainParts = parts.findIndex((part) => NOT_PLAIN.test(part));
  const plain = (plainParts === -1 ? parts : parts.slice(0, plainParts))
    .join(" ")
    // As Markdown shows it: without the spaces that end a line or the paragraph.
    .replace(/[ \t]+\n/g, "\n")
    .trimEnd();
  const rest = plainParts === -1 ? [] : parts.slice(plainParts);
  const [cut, setCut] = useState(NOT_CUT);
  // Cuts hold for the text they were found in: any other (not a continuation) is laid out anew.
  const cuts = plain.startsWith(cut.text) ? cut.at : NOT_CUT.at;
  const lastCut = cuts.at(-1) ?? 0;
  const ref = useRef<HTMLParagraphElement>(null);

  useLayoutEffect(() => {
    if (plain.length - lastCut < BLOCK_LENGTH) return;
    const text = ref.current?.lastElementChild?.firstChild;
    if (!(text instanceof Text)) return;
    // Lines but the last keep their breaks as text is added: cut where the one before the last begins.
    const at = lineStart(text, 2);
    if (at > 0) setCut({ at: [...cuts, lastCut + at], text: plain.slice(0, lastCut + at) });
  }, [plain, cuts, lastCut]);

  useEffect(() => {
    const paragraph = ref.current;
    if (!paragraph) return;
    let width = paragraph.clientWidth;
    const observer = new ResizeObserver(() => {
      if (paragraph.clientWidth === width) return;
      width = paragraph.clientWidth;
      setCut(NOT_CUT);
    });
    observer.observe(paragraph);
    return () => observer.disconnect();
  }, []);

  const starts = [0, ...cuts];
  return (
    <p ref={ref}>
      {starts.map((start, i) =>
        i < cuts.length ? (
          <span key={start} className="block">
            {plain.slice(start, cuts[i])}
          </span>
        ) : (
          <span key={start} className="block">
            {plain.slice(start)}
            {rest.map((part, j) => (
              <Fragment key={j}>
                {plain || j ? " " : null}
                <MarkdownInline text={part} />
              </Fragment>
            ))}
          </span>
        ),
      )}
    </p>
  );
}

/** The offset in `text` where its `fromEnd`-th line from the end begins (0 when it has fewer lines). */
function lineStart(text: Text, fromEnd: number): number {
  const range = document.createRange();
  const lines = new Set<number>();
  range.selectNodeContents(text);
  for (const rect of range.getClientRects()) if (rect.height > 0) lines.add(rect.top);
  const tops = [...lines].sort((a, b) => a - b);
  if (tops.length <= fromEnd) return 0;
  const target = tops[tops.length - fromEnd]!;
  const top = (offset: number) => {
    range.setStart(text, offset);
    range.setEnd(text, offset + 1);
    return range.getBoundingClientRect().top;
  };
  let low = 0;
  let high = text.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (top(middle) >= target - 1) high = middle;
    else low = middle + 1;
  }
  return low;
}
