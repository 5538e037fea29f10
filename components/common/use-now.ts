"use client";

import { useEffect, useState } from "react";

/**
 * The current time, refreshed every `intervalMs` (for countdowns); undefined until the page is
 * hydrated, so the server's render and the browser's first one agree (React error #418 otherwise).
 */
export function useNow(intervalMs = 1000): number | undefined {
  const [now, setNow] = useState<number>();
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** "4 min 10 s left" / "expired" ("" until the time is known). */
export function timeLeft(expiresAt: string | number | undefined, now: number | undefined): { expired: boolean; label: string } {
  if (expiresAt === undefined) return { expired: false, label: "no expiry" };
  if (now === undefined) return { expired: false, label: "" };
  const ms = new Date(expiresAt).getTime() - now;
  if (Number.isNaN(ms)) return { expired: false, label: "unknown expiry" };
  if (ms <= 0) return { expired: true, label: "expired" };
  const s = Math.floor(ms / 1000);
  if (s < 60) return { expired: false, label: `${s} s left` };
  const m = Math.floor(s / 60);
  if (m < 60) return { expired: false, label: `${m} min ${s % 60} s left` };
  const h = Math.floor(m / 60);
  return { expired: false, label: `${h} h ${m % 60} min left` };
}
