// Chat with the console's demo agent from Node with @ag-ui/client: ask for a refund, receive the
// approval interrupt, approve it, and print the tool's result and the agent's answer.
//   node examples/agui-approve.mjs            (console on http://127.0.0.1:3000)
//   AGUI_URL=http://127.0.0.1:3000/api/agui/demo AGUI_TOKEN=aguic_... node examples/agui-approve.mjs
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const url = process.env.AGUI_URL ?? "http://127.0.0.1:3000/api/agui/demo";
const headers = process.env.AGUI_TOKEN ? { authorization: `Bearer ${process.env.AGUI_TOKEN}` } : {};
const agent = new HttpAgent({ url, headers });

// A RUN_ERROR does not make runAgent() throw: watch for it.
const subscriber = {
  onRunErrorEvent: ({ event }) => {
    throw new Error(`run failed: ${event.message}`);
  },
  onToolCallResultEvent: ({ event }) => console.log("tool result:", event.content),
};

agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "refund order 1234 for 20 EUR" });
await agent.runAgent({}, subscriber);

// The run paused: one interrupt per call that waits for a person.
for (const interrupt of agent.pendingInterrupts) {
  console.log(`interrupt ${interrupt.id}: ${interrupt.message}`, interrupt.metadata.arguments);
}

// Approve every open interrupt (payload: { approved, reason?, editedArgs? }) in one resume.
const answers = Object.fromEntries(agent.pendingInterrupts.map((i) => [i.id, { status: "resolved", payload: { approved: true } }]));
await agent.runAgent({ resume: buildResumeArray(agent.pendingInterrupts, answers) }, subscriber);

console.log("answer:", agent.messages.at(-1)?.content);
