"use client";

import { useEffect, useState } from "react";

/**
 * The address other programs reach this console at: PUBLIC_URL when it is set, else the origin the
 * page was opened at. That origin is known only in the browser, so the server renders PUBLIC_URL or
 * the default address, and the page's own origin replaces it once mounted. No trailing slash.
 */
export function useConsoleOrigin(publicUrl: string | undefined): string {
  const [origin, setOrigin] = useState(publicUrl ?? "http://127.0.0.1:3000");
  useEffect(() => {
    if (!publicUrl) setOrigin(window.location.origin);
  }, [publicUrl]);
  return origin.replace(/\/+$/, "");
}
