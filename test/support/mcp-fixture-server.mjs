// A small MCP server for the import tests, run over stdio by the importer: the SDK's low-level
// Server (so it can list what McpServer would refuse), tools listed two per page, and tools that
// change the list, stop the process, or report the environment it was given.
//   FIXTURE_BAD_TOOL=1   also list one malformed tool (an input schema that is not an object)
//   FIXTURE_PREFIX=name  put this before every tool name (two fixtures can run side by side)
//   FIXTURE_REFUSE=1     write the FIXTURE_TOKEN it got on stderr and exit before the handshake
import process from "node:process";
import { setTimeout } from "node:timers";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

if (process.env.FIXTURE_REFUSE === "1") {
  process.stderr.write(`refusing token ${process.env.FIXTURE_TOKEN}\n`);
  process.exit(2);
}

const PAGE = 2;
const prefix = process.env.FIXTURE_PREFIX ?? "";
const object = (properties = {}, required = []) => ({ type: "object", properties, required });

const tools = [
  {
    name: "say",
    description: "Say the text back",
    inputSchema: object({ text: { type: "string" } }, ["text"]),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  // No annotations: MCP's defaults make it a tool that may destroy things.
  { name: "wipe", description: "Wipe everything (pretend)", inputSchema: object({ target: { type: "string" } }, ["target"]) },
  {
    name: "add.tool",
    description: "Add a tool to the list and say the list changed",
    inputSchema: object(),
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  { name: "crash", description: "Stop the process", inputSchema: object(), annotations: { readOnlyHint: false, destructiveHint: false } },
  {
    name: "env_names",
    description: "The names of the environment variables this process got",
    inputSchema: object(),
    outputSchema: object({ names: { type: "array", items: { type: "string" } }, pid: { type: "number" } }, ["names", "pid"]),
    annotations: { readOnlyHint: true },
  },
].map((tool) => ({ ...tool, name: `${prefix}${tool.name}` }));
if (process.env.FIXTURE_BAD_TOOL === "1")
  tools.splice(1, 0, { name: `${prefix}broken`, description: "Malformed", inputSchema: { type: "string" } });

const server = new Server({ name: "import-fixture", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const page = tools.slice(start, start + PAGE);
  return { tools: page, ...(start + PAGE < tools.length && { nextCursor: String(start + PAGE) }) };
});
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const name = request.params.name.slice(prefix.length);
  const args = request.params.arguments ?? {};
  switch (name) {
    case "say":
      return { content: [{ type: "text", text: `said: ${args.text}` }] };
    case "wipe":
      return { content: [{ type: "text", text: `wiped ${args.target}` }] };
    case "add.tool": {
      const added = `${prefix}added_${tools.length}`;
      tools.push({ name: added, description: "Added at run time", inputSchema: object(), annotations: { readOnlyHint: true } });
      await server.sendToolListChanged();
      return { content: [{ type: "text", text: added }] };
    }
    case "crash":
      setTimeout(() => process.exit(3), 10);
      return { content: [{ type: "text", text: "stopping" }] };
    case "env_names": {
      const value = { names: Object.keys(process.env).sort(), pid: process.pid };
      return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
    }
    default:
      throw Object.assign(new Error(`Unknown tool: ${request.params.name}`), { code: -32602 });
  }
});
await server.connect(new StdioServerTransport());
