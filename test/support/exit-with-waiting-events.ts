// Run in its own process by test/run-store.test.ts: records a run's events through the process's
// services (getServices, as the Next.js server does) and exits at once, before the write delay.
import { getServices } from "../../lib/services";

async function main(): Promise<void> {
  const services = await getServices();
  await services.runs.start({ runId: "r-exit", threadId: "t-exit", agent: "demo", principal: "local" });
  services.runs.append("r-exit", 0, [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "written at exit" } as never]);
  process.exit(0);
}

// tsx runs this file as CommonJS here, where a top-level await is refused.
main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
