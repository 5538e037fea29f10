// Run in its own process by test/run-store.test.ts: records a run's events through the process's
// services (getServices, as the Next.js server does) and exits at once, before the write delay.
import { getServices } from "../../lib/services";

const services = getServices();
services.runs.start({ runId: "r-exit", threadId: "t-exit", agent: "demo", principal: "local" });
services.runs.append("r-exit", 0, [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "written at exit" } as never]);
process.exit(0);
