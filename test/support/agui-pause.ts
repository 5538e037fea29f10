// A separate process that runs the demo agent until it asks for approval, prints what a client
// keeps (thread id, messages, open interrupts) as one JSON line on stdout, and exits.
// Usage: node --import tsx test/support/agui-pause.ts <database file> <user text>
import { HttpAgent } from "@ag-ui/client";
import type { RunFinishedEvent } from "@ag-ui/core";
import { startAguiServer } from "./agui-server";

async function main(file: string, text: string): Promise<void> {
  const server = await startAguiServer({ CONSOLE_DB: file });
  try {
    const client = new HttpAgent({ url: `${server.url}/api/agui/demo` });
    client.addMessage({ id: "u-1", role: "user", content: text });
    let runId: string | undefined;
    let outcome: RunFinishedEvent["outcome"];
    await client.runAgent(
      {},
      {
        onRunStartedEvent: ({ event }) => void (runId = event.runId),
        onRunFinishedEvent: ({ event }) => void (outcome = event.outcome),
      },
    );
    const paused = {
      pid: process.pid,
      threadId: client.threadId,
      runId,
      messages: client.messages,
      interrupts: client.pendingInterrupts,
      outcome,
    };
    process.stdout.write(`${JSON.stringify(paused)}\n`);
  } finally {
    await server.close();
  }
}

const [file, text] = process.argv.slice(2);
if (!file || !text) throw new Error("usage: agui-pause.ts <database file> <user text>");
main(file, text).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
