import { useSyncExternalStore } from "react";
import type { AgentState } from "./agent-state";
import type { AgentSnapshot } from "./snapshot";

/** The store's current snapshot; the component re-renders whenever it changes. */
export function useAgentState(store: AgentState): AgentSnapshot {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}
