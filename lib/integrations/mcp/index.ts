export { toMcpTool, toMcpTools, wrapsResult, CONFIRM_META, type McpTool } from "./mcp-tools";
