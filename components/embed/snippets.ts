// The code the Embed page hands out, as one pure function of the endpoint URL, the agent's name and
// (when one was just created) the token. The page renders this text and test/embed/snippets.test.ts
// runs the curl and Node ones against a real console, so what a developer copies is what was run.

import { shellWord } from "../common/shell-word";

/** What a snippet needs to know about where it will talk to. */
export interface SnippetTarget {
  /** The agent's AG-UI endpoint, e.g. https://console.example.com/api/agui/demo. */
  url: string;
  /** The agent's name in the console's catalog. */
  agent: string;
  /** A token just created on the page; absent, the snippets read it from AGUI_TOKEN. */
  token?: string;
}

export interface Snippets {
  /** A shell command: one run with curl, the event stream printed as it arrives. */
  curl: string;
  /** A Node program (ESM, `@ag-ui/client`): chats, prints deltas and tool calls, approves interrupts. */
  node: string;
  /** A React component on CopilotKit's v2 API (the console's /embed/copilotkit page runs the same one). */
  react: string;
}

/** The environment variable the snippets read the token from when the page did not just make one. */
export const TOKEN_VARIABLE = "AGUI_TOKEN";

/** The message the Node program sends when given none: the demo agent pauses it for approval. */
export const SAMPLE_MESSAGE = "refund order 1234 for 20 EUR";

/** The three snippets for `target`. */
export function embedSnippets(target: SnippetTarget): Snippets {
  return { curl: curlSnippet(target), node: nodeSnippet(target), react: reactSnippet(target) };
}

/** A string literal for JavaScript source (JSON's quoting is valid JS). */
const js = (value: string) => JSON.stringify(value);

function curlSnippet({ url, token }: SnippetTarget): string {
  // With no token the shell expands $AGUI_TOKEN; a created one is written out (it is the page's own).
  const authorization = token ? shellWord(`authorization: Bearer ${token}`) : `"authorization: Bearer $${TOKEN_VARIABLE}"`;
  return [
    `# One run of the agent; prints the AG-UI events (RUN_STARTED ... RUN_FINISHED) as they stream.`,
    ...(token ? [] : [`# Set ${TOKEN_VARIABLE} first: export ${TOKEN_VARIABLE}=aguic_...`]),
    `# Each run needs a fresh runId (a reused one is refused with 409): the time, the shell's pid and $RANDOM make one.`,
    `curl -sS -N ${shellWord(url)} \\`,
    `  -H 'content-type: application/json' \\`,
    `  -H 'accept: text/event-stream' \\`,
    `  -H ${authorization} \\`,
    `  --data-binary @- <<EOF`,
    `{`,
    `  "threadId": "curl-thread-$(date +%s)-$$",`,
    `  "runId": "curl-run-$(date +%s)-$$-$RANDOM",`,
    `  "messages": [{ "id": "m1", "role": "user", "content": "What is the weather in Paris?" }],`,
    `  "tools": [], "context": [], "state": {}, "forwardedProps": {}`,
    `}`,
    `EOF`,
  ].join("\n");
}

function nodeSnippet({ url, token }: SnippetTarget): string {
  const tokenLine = token ? `const token = process.env.${TOKEN_VARIABLE} ?? ${js(token)};` : `const token = process.env.${TOKEN_VARIABLE};`;
  return `// chat.mjs: talk to a console agent from Node 20+ with @ag-ui/client (npm install @ag-ui/client).
//   node chat.mjs ["your message"]
// Prints the agent's text as it streams and each tool call; a call that waits for approval ends the
// run with an interrupt (RUN_FINISHED outcome "interrupt"), which this program approves.
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const url = ${js(url)};
${tokenLine}
const message = process.argv[2] ?? ${js(SAMPLE_MESSAGE)};

// One HttpAgent keeps the thread (agent.threadId) and its messages from one run to the next.
const agent = new HttpAgent({ url, headers: token ? { authorization: \`Bearer \${token}\` } : {} });

// runAgent() resolves on a RUN_ERROR event, and throws on a transport failure (401, console down)
// unless onRunFailed stops it: keep either and check after each run.
let failure;
const subscriber = {
  onTextMessageContentEvent: ({ event }) => void process.stdout.write(event.delta),
  onTextMessageEndEvent: () => void process.stdout.write("\\n"),
  onToolCallEndEvent: ({ toolCallName, toolCallArgs }) =>
    console.log(\`[tool call] \${toolCallName} \${JSON.stringify(toolCallArgs)}\`),
  onToolCallResultEvent: ({ event }) => console.log(\`[tool result] \${event.content}\`),
  onRunErrorEvent: ({ event }) => void (failure = \`run failed: \${event.message} (\${event.code ?? "no code"})\`),
  onRunFailed: ({ error }) => {
    failure = error?.status
      ? \`HTTP \${error.status}: \${error.payload?.error?.message ?? error.message}\`
      : \`cannot reach \${url}: \${error?.message ?? error}\`;
    return { stopPropagation: true };
  },
};

async function run(input) {
  failure = undefined;
  await agent.runAgent(input, subscriber);
  if (failure) {
    console.error(failure);
    process.exit(1);
  }
}

agent.addMessage({ id: crypto.randomUUID(), role: "user", content: message });
await run({});

// While the run ends waiting for a person, approve every open interrupt in one resume and go on.
for (let round = 0; agent.pendingInterrupts.length > 0 && round < 5; round++) {
  for (const interrupt of agent.pendingInterrupts)
    console.log(\`[approval] \${interrupt.message ?? interrupt.id}: approving\`);
  const answers = Object.fromEntries(
    agent.pendingInterrupts.map((i) => [i.id, { status: "resolved", payload: { approved: true } }]),
  );
  await run({ resume: buildResumeArray(agent.pendingInterrupts, answers) });
}

console.log(\`answer: \${agent.messages.findLast((m) => m.role === "assistant" && m.content)?.content ?? "(none)"}\`);
`;
}

function reactSnippet({ url, agent, token }: SnippetTarget): string {
  const tokenExpression = token ? js(token) : `process.env.NEXT_PUBLIC_${TOKEN_VARIABLE}`;
  return `// A chat with the console's "${agent}" agent in a React app, on CopilotKit's v2 API.
// Written for @copilotkit/react-core 1.74 (npm install @copilotkit/react-core); the console's own
// /embed/copilotkit page runs this component (there with no token: it is the console's origin).
// What the console's endpoint does for CopilotKit 1.74:
// - its HttpAgent (exported by @copilotkit/react-core/v2) is @ag-ui/client 0.0.59, older than AG-UI
//   1.0: it sends no protocolVersion, so the endpoint answers in the form 0.0.59 accepts (a
//   cancelled run arrives as RUN_ERROR); no second @ag-ui/client and no cast are needed;
// - on Approve or Deny, CopilotKit adds its own tool message and resumes under the paused run's id:
//   the endpoint runs that as a new run, runs the tool once, and keeps its own result.
// Known limits of CopilotKit 1.74:
// - agents__unsafe_dev_only is meant for development (the production prop, selfManagedAgents, is a
//   licensed tier), and CopilotKit adds about 600 KB gzipped: load it only where it is used;
// - an open interrupt lives in component state and is lost on reload;
// - a token in browser code is visible to its users: give this page a token with the agui scope only.
"use client";

import { CopilotChat, CopilotKitProvider, HttpAgent, useInterrupt } from "@copilotkit/react-core/v2";
// Imported by name: some bundlers drop the stylesheet CopilotKit's module imports itself.
import "@copilotkit/react-core/v2/styles.css";

const AGENT = ${js(agent)};
const agent = new HttpAgent({
  url: ${js(url)},
  headers: { authorization: \`Bearer \${${tokenExpression}}\` },
});

export function ConsoleChat() {
  return (
    <CopilotKitProvider agentId={AGENT} agents__unsafe_dev_only={{ [AGENT]: agent }}>
      <Approval />
      <CopilotChat agentId={AGENT} />
    </CopilotKitProvider>
  );
}

/** A call that waits for approval: approve or deny it; CopilotKit sends the resume run. */
function Approval() {
  useInterrupt({
    agentId: AGENT,
    render: ({ interrupt, resolve }) =>
      interrupt ? (
        <div role="group" aria-label="Approval">
          <p>{interrupt.message ?? "A tool call waits for your approval"}</p>
          <pre>{JSON.stringify(interrupt.metadata?.arguments, null, 2)}</pre>
          <button onClick={() => resolve({ approved: true }, interrupt.id)}>Approve</button>
          <button onClick={() => resolve({ approved: false, reason: "Denied in the app" }, interrupt.id)}>Deny</button>
        </div>
      ) : (
        <></>
      ),
  });
  return null;
}
`;
}
