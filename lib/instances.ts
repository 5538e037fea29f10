import type { ApprovalStore } from "./approvals";
import type { ChangeBus } from "./db/change-bus";
import type { Logger } from "./log";

/** Something an instance keeps in memory that other instances change too (the tool registry, the settings). */
export interface SharedCache {
  kind: "registry" | "settings";
  /** Re-read it from the database: another instance changed it. */
  reload(): Promise<void>;
  /** Hear this instance's own changes (not those `reload` brings in); returns an unsubscribe function. */
  onLocalChange(listener: () => void): () => void;
}

export interface InstanceLinkOptions {
  /** This instance's name on the bus, so it can tell its own announcements from the others'. */
  instance: string;
  bus: ChangeBus;
  approvals: ApprovalStore;
  caches: readonly SharedCache[];
  logger: Logger;
}

/**
 * Tie one console instance to the others sharing its database through the change bus: this
 * instance's approval changes and cache changes are announced (kind and id only), and the others'
 * are heard: an approval change reaches this instance's listeners (the inbox stream, a chat waiting
 * on a decision, MCP and A2A tasks) as if it were made here, a cache change reloads the cache.
 * After the bus lost its connection (`resync`) every cache is reloaded. Returns the unlink function.
 */
export function linkInstances({ instance, bus, approvals, caches, logger }: InstanceLinkOptions): () => void {
  const announce = (change: Parameters<ChangeBus["publish"]>[0]) =>
    bus
      .publish(change)
      .catch((error: unknown) => logger.error("could not tell the other console instances of a change", { change, error }));
  const reload = (cache: SharedCache) =>
    cache
      .reload()
      .catch((error: unknown) => logger.error("could not reload what another console instance changed", { kind: cache.kind, error }));

  const unlinks = [
    approvals.onChange((change) => {
      if (!change.heard) void announce({ kind: "approval", id: change.approval.id, from: instance });
    }),
    ...caches.map((cache) => cache.onLocalChange(() => void announce({ kind: cache.kind, from: instance }))),
    bus.subscribe((change) => {
      if (change.kind === "resync") {
        for (const cache of caches) void reload(cache);
        return;
      }
      if (change.from === instance) return;
      if (change.kind === "approval")
        approvals
          .heard(change.id)
          .catch((error: unknown) => logger.error("could not read an approval another console instance changed", { id: change.id, error }));
      const cache = caches.find((c) => c.kind === change.kind);
      if (cache) void reload(cache);
    }),
  ];
  return () => {
    for (const unlink of unlinks) unlink();
  };
}
