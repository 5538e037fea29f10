export { AgentStatesSaver, DEFAULT_KEPT_CHECKPOINTS } from "./checkpoint-saver";
export {
  CONSOLE_APPROVALS,
  consoleContext,
  consoleToolsNode,
  type ConsoleGraphContext,
  type ConsoleToolsNodeOptions,
} from "./console-tools";
export { ASK_PERSON, LANGGRAPH_DEMO, langGraphDemoAgent, type LangGraphDemoOptions } from "./demo-graph";
export { MESSAGES_NOT_TAKEN_EVENT, langGraphAgent, type LangGraphAgentOptions, type RunnableGraph } from "./langgraph-agent";
