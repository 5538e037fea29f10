"use client";

import { useEffect, useRef } from "react";
import type { ApprovalEventMessage } from "@/lib/api/contracts";

/**
 * Follow the live stream of approval changes (optionally of one thread). EventSource reconnects by
 * itself after a network error. `enabled` false follows nothing (a viewer may not read approvals).
 */
export function useApprovalEvents(onMessage: (message: ApprovalEventMessage) => void, threadId?: string, enabled = true): void {
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => {
    if (!enabled) return;
    const source = new EventSource(`/api/approvals/events${threadId ? `?threadId=${encodeURIComponent(threadId)}` : ""}`);
    source.onmessage = (event) => {
      try {
        handler.current(JSON.parse(event.data) as ApprovalEventMessage);
      } catch {
        // A frame that is not JSON is not ours to act on.
      }
    };
    return () => source.close();
  }, [threadId, enabled]);
}
