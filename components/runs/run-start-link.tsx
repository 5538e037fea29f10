import Link from "next/link";
import { LocalTime } from "../common/local-time";

/** A run named by when it started (in the reader's zone), linking to its page. */
export function RunStartLink({ run }: { run: { id: string; startedAt: number } }) {
  return (
    <Link className="text-indigo-700 underline" href={`/runs/${encodeURIComponent(run.id)}`}>
      <LocalTime at={run.startedAt} />
    </Link>
  );
}
