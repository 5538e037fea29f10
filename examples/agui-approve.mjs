// Chat with the console's demo agent from Node with @ag-ui/client: ask for a refund, receive the
// approval interrupt, approve it, and print the tool's result and the agent's answer.
//   node examples/agui-approve.mjs            (console on http://127.0.0.1:3000)
//   AGUI_URL=http://127.0.0.1:3000/api/agui/demo AGUI_TOKEN=aguic_... node examples/agui-approve.mjs
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const url = process.env.AGUI_URL ?? "http://127.0.0.1:3000/api/agui/demo";
const headers = process.env.AGUI_TOKEN ? { authorization: `Bearer ${process.env.AGUI_TOKEN}` } : {};
// The agent object keeps the thread (agent.threadId) and its messages from one run to the next.
const agent = new HttpAgent({ url, headers });

// A RUN_ERROR is an event: runAgent() still resolves, and @ag-ui/client only logs an exception
// thrown in a subscriber. A transport failure (console down, 401) makes runAgent() log and throw,
// unless a subscriber's onRunFailed stops it. So keep either, and check after each run.
let failure;
const subscriber = {
  onRunErrorEvent: ({ event }) => {
    failure = `run failed: ${event.message} (${event.code ?? "no code"})`;
  },
  onRunFailed: ({ error }) => {
    failure = transportFailure(error);
    return { stopPropagation: true };
  },
  onToolCallResultEvent: ({ event }) => console.log("tool result:", event.content),
};
async function run(input) {
  failure = undefined;
  await agent.runAgent(input, subscriber);
  if (failure) {
    console.error(failure);
    process.exit(1);
  }
}

/** One line: what failed, and what to check. */
function transportFailure(error) {
  const code = error?.cause?.code;
  if (code) return `Cannot reach the console at ${url} (${code}): is it running (npm start)? Set AGUI_URL to its address.`;
  if (error?.status === 401) return `The console at ${url} wants a token (HTTP 401): set AGUI_TOKEN (npm run token -- create NAME).`;
  if (error?.status) return `The console at ${url} answered HTTP ${error.status}: ${error.payload?.error?.message ?? error.message}`;
  return `The run failed: ${error?.message ?? error}`;
}

agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "refund order 1234 for 20 EUR" });
await run({});

// The run paused: one interrupt per call that waits for a person.
for (const interrupt of agent.pendingInterrupts) {
  console.log(`interrupt ${interrupt.id}: ${interrupt.message}`, interrupt.metadata.toolName, interrupt.metadata.arguments);
}

// Approve every open interrupt (payload: { approved, reason?, editedArgs? }) in one resume.
const answers = Object.fromEntries(agent.pendingInterrupts.map((i) => [i.id, { status: "resolved", payload: { approved: true } }]));
await run({ resume: buildResumeArray(agent.pendingInterrupts, answers) });

console.log("answer:", agent.messages.at(-1)?.content);
