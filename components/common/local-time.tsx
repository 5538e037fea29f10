"use client";

import { useEffect, useState } from "react";

/** How much of the moment to show: "short" (05/12/2026, 09:41), "medium" (5 Dec 2026, 09:41:07). */
export type LocalTimeStyle = "short" | "medium";

const FORMATS: Record<LocalTimeStyle, Intl.DateTimeFormatOptions> = {
  short: { dateStyle: "short", timeStyle: "short" },
  medium: { dateStyle: "medium", timeStyle: "medium" },
};

/**
 * A moment in the reader's time zone. The server does not know that zone, so the text is written
 * once the page is hydrated (the server's render and the browser's first one agree); the element's
 * title gives the moment in UTC as well.
 */
export function LocalTime({ at, style = "medium" }: { at: number; style?: LocalTimeStyle }) {
  const [text, setText] = useState<string>();
  useEffect(() => {
    setText(new Date(at).toLocaleString("en-GB", FORMATS[style]));
  }, [at, style]);
  const iso = new Date(at).toISOString();
  return (
    <time dateTime={iso} title={`${iso.replace("T", " ").slice(0, 19)} UTC`}>
      {text}
    </time>
  );
}
