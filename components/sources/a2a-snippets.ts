// What the Sources page hands an A2A client: one call of the built-in `calculate` tool, from a shell
// and from the A2A SDK, as a pure function of the console's address. test/a2a/client-snippets.test.ts
// runs both against a real console, so what a developer copies is what was run.
import { shellWord } from "../common/shell-word";

export type A2aSnippet = "curl" | "typescript";

/**
 * One call of the built-in `calculate` tool as a data part, from a shell or from the A2A SDK, to the
 * console at `origin`. The token comes from A2A_TOKEN and is left out when it is unset.
 */
export function a2aSnippets(origin: string): Record<A2aSnippet, string> {
  const curl = [
    "# One SendMessage (A2A 1.0): a data part { tool, arguments } calls that tool; the answer is the task.",
    "# Set A2A_TOKEN first (a token with the a2a scope); unset, no Authorization header is sent.",
    `curl -sS ${shellWord(`${origin}/api/a2a`)} \\`,
    "  -H 'content-type: application/json' -H 'A2A-Version: 1.0' \\",
    '  ${A2A_TOKEN:+-H "Authorization: Bearer $A2A_TOKEN"} \\',
    "  --data-binary @- <<EOF",
    '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {',
    '  "messageId": "curl-$(date +%s)-$RANDOM", "role": "ROLE_USER",',
    '  "parts": [{"data": {"tool": "calculate", "arguments": {"expression": "6*7"}}}]',
    "}}}",
    "EOF",
  ].join("\n");
  const typescript = `import { Message, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

// A2A_TOKEN: a token with the a2a scope (unset, no Authorization header is sent).
const token = process.env.A2A_TOKEN;
const fetchImpl: typeof fetch = (url, init) => {
  const headers = new Headers(init?.headers);
  if (token) headers.set("authorization", \`Bearer \${token}\`);
  return fetch(url, { ...init, headers });
};
const client = await new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  }),
).createFromUrl(${JSON.stringify(origin)});
const task = await client.sendMessage({
  tenant: "",
  metadata: undefined,
  configuration: undefined,
  message: Message.fromJSON({
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    parts: [{ data: { tool: "calculate", arguments: { expression: "6*7" } } }],
  }),
});
if (!("id" in task)) throw new Error("expected a task");
// TASK_STATE_COMPLETED {"$case":"data","value":{"expression":"6*7","result":42}}
console.log(TaskState[task.status!.state], JSON.stringify(task.artifacts[0]?.parts[0]?.content));
`;
  return { curl, typescript };
}
