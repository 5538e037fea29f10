"use client";

import { useEffect, useRef } from "react";

/** One change from GET /api/approvals/events. */
export interface ApprovalEventMessage {
  type: string;
  pending: number;
  approval?: {
    id: string;
    status: string;
    tool: string;
    threadId: string | null;
    decidedBy: string | null;
    reason: string | null;
    editedArgs: Record<string, unknown> | null;
  };
}

/**
 * Follow the live stream of approval changes (optionally of one thread). EventSource reconnects by
 * itself after a network error.
 */
export function useApprovalEvents(onMessage: (message: ApprovalEventMessage) => void, threadId?: string): void {
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => {
    const source = new EventSource(`/api/approvals/events${threadId ? `?threadId=${encodeURIComponent(threadId)}` : ""}`);
    source.onmessage = (event) => {
      try {
        handler.current(JSON.parse(event.data) as ApprovalEventMessage);
      } catch {
        // A frame that is not JSON is not ours to act on.
      }
    };
    return () => source.close();
  }, [threadId]);
}
