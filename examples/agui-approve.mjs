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
// thrown in a subscriber. So keep it, and check after each run.
let failure;
const subscriber = {
  onRunErrorEvent: ({ event }) => {
    failure = event;
  },
  onToolCallResultEvent: ({ event }) => console.log("tool result:", event.content),
};
async function run(input) {
  failure = undefined;
  await agent.runAgent(input, subscriber);
  if (failure) throw new Error(`run failed: ${failure.message} (${failure.code ?? "no code"})`);
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
