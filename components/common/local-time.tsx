"use client";

import { useEffect, useState } from "react";

/**
 * How much of the moment to show: "short" (5 Dec 2026, 09:41), "medium" (5 Dec 2026, 09:41:07). The
 * month is a name in both: 05/12/2026 reads as the 12th of May to half the world.
 */
export type LocalTimeStyle = "short" | "medium";

const FORMATS: Record<LocalTimeStyle, Intl.DateTimeFormatOptions> = {
  short: { dateStyle: "medium", timeStyle: "short" },
  medium: { dateStyle: "medium", timeStyle: "medium" },
};

// One formatter per style for the page: Date.toLocaleString with options builds a new one on every
// call, and a list of thirty times would build thirty (each a lookup in the browser's locale data).
const formatters = new Map<LocalTimeStyle, Intl.DateTimeFormat>();

function format(at: number, style: LocalTimeStyle): string {
  let formatter = formatters.get(style);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", FORMATS[style]);
    formatters.set(style, formatter);
  }
  return formatter.format(at);
}

/**
 * A moment in the reader's time zone. The server does not know that zone, so the text is written
 * once the page is hydrated (the server's render and the browser's first one agree); the element's
 * title gives the moment in UTC as well.
 */
export function LocalTime({ at, style = "medium" }: { at: number; style?: LocalTimeStyle }) {
  const [text, setText] = useState<string>();
  useEffect(() => {
    setText(format(at, style));
  }, [at, style]);
  const iso = new Date(at).toISOString();
  return (
    <time dateTime={iso} title={`${iso.replace("T", " ").slice(0, 19)} UTC`}>
      {text}
    </time>
  );
}
