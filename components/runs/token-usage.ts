/** One entry of a run's token usage as stored (AG-UI's TokenUsage; any field may be missing). */
interface UsageEntry {
  provider?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

function totalOf(entry: UsageEntry): number {
  return entry.totalTokens || (entry.inputTokens ?? 0) + (entry.outputTokens ?? 0);
}

/** A run's tokens over all its entries, or "—" when it reported none. */
export function tokenTotal(usage: readonly unknown[] | null): string {
  if (!usage?.length) return "—";
  return (usage as UsageEntry[]).reduce((sum, entry) => sum + totalOf(entry), 0).toLocaleString("en");
}

/** Each entry as "openai gpt-5-mini: 19 in, 28 out", joined; undefined when the run reported none. */
export function tokenDetail(usage: readonly unknown[] | null): string | undefined {
  if (!usage?.length) return undefined;
  return (usage as UsageEntry[])
    .map((entry) => {
      const who = [entry.provider, entry.model].filter(Boolean).join(" ") || "model";
      return `${who}: ${(entry.inputTokens ?? 0).toLocaleString("en")} in, ${(entry.outputTokens ?? 0).toLocaleString("en")} out`;
    })
    .join("; ");
}
