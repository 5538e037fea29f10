"use client";

import { useMemo } from "react";
import { base64Bytes, contentBlocksOf, type ShownBlock } from "@/lib/client/content-blocks";
import { JsonView } from "./json-view";

/**
 * A tool's value: as its MCP content blocks when it is made of them (an imported tool's image, say),
 * with `json` (the value itself unless given: a recorded outcome, say) folded below; else as `json`.
 */
export function ToolValueView({
  value,
  json = value,
  tool,
  label,
  openDepth,
}: {
  value: unknown;
  json?: unknown;
  tool: string;
  label: string;
  openDepth?: number;
}) {
  const blocks = useMemo(() => contentBlocksOf(value), [value]);
  if (!blocks) return <JsonView value={json} label={label} openDepth={openDepth} />;
  return (
    <div>
      <ContentBlocksView blocks={blocks} tool={tool} label={label} />
      <details className="mt-1">
        <summary className="cursor-pointer text-xs text-slate-500">As JSON</summary>
        <JsonView value={json} label={`${label} as JSON`} openDepth={openDepth} />
      </details>
    </div>
  );
}

/**
 * A tool's result made of MCP content blocks, as its reader would take it: text as text, images
 * and sounds inline (PNG, JPEG, GIF and WebP; common audio types), resources with their address and
 * text. Addresses are shown, never followed: a tool chose them.
 */
export function ContentBlocksView({ blocks, tool, label = `Result of ${tool}` }: { blocks: ShownBlock[]; tool: string; label?: string }) {
  return (
    <div className="mt-1 space-y-2" aria-label={label}>
      {blocks.map((block, i) => (
        <Block key={i} block={block} tool={tool} />
      ))}
    </div>
  );
}

function Block({ block, tool }: { block: ShownBlock; tool: string }) {
  switch (block.type) {
    case "text":
      return <p className="text-sm whitespace-pre-wrap">{block.text}</p>;
    case "image":
      return block.src ? (
        // A data: URL from the tool's answer: there is nothing for next/image to optimise.
        <img
          src={block.src}
          alt={`Image from ${tool} (${block.mimeType})`}
          className="max-h-64 max-w-full rounded border border-slate-200"
        />
      ) : (
        <Unshown block={block} />
      );
    case "audio":
      return block.src ? (
        <audio controls src={block.src} aria-label={`Sound from ${tool} (${block.mimeType})`} className="max-w-full" />
      ) : (
        <Unshown block={block} />
      );
    case "resource":
      return (
        <div className="rounded-md border border-slate-200 p-2 text-xs">
          <p className="font-mono break-all text-slate-600">
            {block.uri}
            {block.mimeType ? <span className="text-slate-400"> · {block.mimeType}</span> : null}
          </p>
          {block.text !== undefined ? (
            <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap">{block.text}</pre>
          ) : block.blobBytes !== undefined ? (
            <p className="mt-1 text-slate-500">{block.blobBytes.toLocaleString("en")} bytes of binary content</p>
          ) : null}
        </div>
      );
    case "resource_link":
      return (
        <p className="text-xs">
          Link to <span className="font-semibold">{block.name}</span>:{" "}
          <span className="font-mono break-all text-slate-600">{block.uri}</span>
          {block.mimeType ? <span className="text-slate-400"> · {block.mimeType}</span> : null}
        </p>
      );
  }
}

function Unshown({ block }: { block: Extract<ShownBlock, { type: "image" | "audio" }> }) {
  return (
    <p className="text-xs text-slate-500">
      {block.type === "image" ? "An image" : "A sound"} ({block.mimeType}, {base64Bytes(block.data).toLocaleString("en")} bytes) this page
      does not show inline.
    </p>
  );
}
