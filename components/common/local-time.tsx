"use client";

import { useEffect, useState } from "react";

/**
 * A moment in the reader's time zone. The server does not know that zone, so the text is written
 * once the page is hydrated (the server's render and the browser's first one agree).
 */
export function LocalTime({ at }: { at: number }) {
  const [text, setText] = useState<string>();
  useEffect(() => {
    setText(new Date(at).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "medium" }));
  }, [at]);
  return <time dateTime={new Date(at).toISOString()}>{text}</time>;
}
