"use client";

import { useEffect, useState } from "react";

/** The current time, refreshed every `intervalMs` (for countdowns). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** "4 min 10 s left" / "expired". */
export function timeLeft(expiresAt: string | number | undefined, now: number): { expired: boolean; label: string } {
  if (expiresAt === undefined) return { expired: false, label: "no expiry" };
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
