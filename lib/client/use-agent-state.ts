import { useMemo, useSyncExternalStore } from "react";
import type { AgentState } from "./agent-state";
import type { AgentSnapshot } from "./snapshot";

export interface UseAgentStateOptions {
  /**
   * Re-render at most once per animation frame (default true). A fast stream applies hundreds of
   * events a second; rendering each one would starve the page. Pass false to render per event.
   */
  perFrame?: boolean;
}

/** The store's current snapshot; the component re-renders when it changes (at most once a frame). */
export function useAgentState(store: AgentState, options: UseAgentStateOptions = {}): AgentSnapshot {
  const perFrame = options.perFrame ?? true;
  const subscribe = useMemo(() => (perFrame ? frameBatched(store.subscribe) : store.subscribe), [store, perFrame]);
  return useSyncExternalStore(subscribe, store.getSnapshot, store.getSnapshot);
}

function frameBatched(subscribe: AgentState["subscribe"]): AgentState["subscribe"] {
  const schedule =
    typeof requestAnimationFrame === "function" ? requestAnimationFrame : (fn: () => void) => setTimeout(fn, 16) as unknown as number;
  const cancel = typeof cancelAnimationFrame === "function" ? cancelAnimationFrame : (id: number) => clearTimeout(id);
  return (listener) => {
    let pending: number | undefined;
    const unsubscribe = subscribe(() => {
      if (pending !== undefined) return;
      pending = schedule(() => {
        pending = undefined;
        listener();
      });
    });
    return () => {
      unsubscribe();
      if (pending !== undefined) cancel(pending);
    };
  };
}
