// Call one of the console's tools over A2A with @a2a-js/sdk and print its result. A call that waits
// for an operator's approval is followed until the operator decides in the console's inbox.
//   node examples/a2a-call.mjs                                    (calculate 6*7, console on http://127.0.0.1:3000)
//   node examples/a2a-call.mjs create_ticket '{"title":"Printer on fire"}'
//   A2A_URL=https://console.example A2A_TOKEN=aguic_... node examples/a2a-call.mjs TOOL 'ARGUMENTS'
import { Message, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

const base = process.env.A2A_URL ?? "http://127.0.0.1:3000";
const token = process.env.A2A_TOKEN;
/** How long to follow a call that waits for approval (A2A_WAIT_SECONDS, 10 minutes unless set). */
const waitMs = Number(process.env.A2A_WAIT_SECONDS ?? 600) * 1000;
const [tool = "calculate", argumentsJson = '{"expression":"6*7"}'] = process.argv.slice(2);

// The SDK takes a fetch: this one sends the token (a console token with the a2a scope) with the
// card's request and every JSON-RPC call. A console on loopback, used from its own machine, needs none.
const fetchImpl = (url, init = {}) => {
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  return fetch(url, { ...init, headers });
};

function fail(message) {
  console.error(message);
  process.exit(1);
}

let client;
try {
  client = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  ).createFromUrl(base);
} catch (error) {
  const code = error?.cause?.code;
  if (code) fail(`Cannot reach the console at ${base} (${code}): is it running (npm start)? Set A2A_URL to its address.`);
  unauthorized(error);
  fail(`Cannot read the console's agent card at ${base}: ${error.message}`);
}

function unauthorized(error) {
  if (/\b401\b/.test(error.message))
    fail(`The console at ${base} wants a token (HTTP 401): set A2A_TOKEN (npm run token -- create NAME --scopes a2a).`);
}

/** Send one message (on `task` when given) and resolve with the task it made or moved. */
async function send(parts, task) {
  try {
    return await client.sendMessage({
      tenant: "",
      metadata: undefined,
      configuration: undefined,
      message: Message.fromJSON({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts, ...task }),
    });
  } catch (error) {
    unauthorized(error);
    fail(`The call failed: ${error.message}`);
  }
}

const stateOf = (task) => TaskState[task.status?.state] ?? "unknown";
const textOf = (parts = []) => parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])).join(" ");

let task = await send([{ data: { tool, arguments: JSON.parse(argumentsJson) } }]);
const waitUntil = Date.now() + waitMs;
let told = false;
while (stateOf(task) === "TASK_STATE_INPUT_REQUIRED") {
  // The status message names each approval and its page in a data part.
  if (!told) {
    const data = task.status.message?.parts.find((part) => part.content?.$case === "data")?.content.value;
    for (const approval of data?.approvals ?? []) console.log(`waiting for approval ${approval.approval_id}: ${approval.approval_url}`);
    told = true;
  }
  if (Date.now() > waitUntil) fail(`Still waiting for approval after ${waitMs / 1000} s; task ${task.id} keeps waiting.`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  // Any message on the task resumes the parked call: run once approved, rejected once denied, else still waiting.
  task = await send([{ text: "Has it been decided?" }], { taskId: task.id, contextId: task.contextId });
}

if (stateOf(task) !== "TASK_STATE_COMPLETED") fail(`${stateOf(task)}: ${textOf(task.status.message?.parts) || "no reason given"}`);
const [part] = task.artifacts?.at(-1)?.parts ?? [];
console.log("result:", JSON.stringify(part?.content?.$case === "data" ? part.content.value : part?.content?.value));
