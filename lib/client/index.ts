// The browser-safe AG-UI client. The React hook lives in ./use-agent-state so that importing
// this module does not import React.
export { AgentState, type AgentStateOptions } from "./agent-state";
export { ThreadModel, type ThreadData } from "./thread-model";
export { AgentHTTPError, AgentInputError, AgentStreamError, type AgentStreamErrorReason } from "./errors";
export { HttpAGUIClient, type HeadersSource, type HttpAGUIClientOptions } from "./http-agui-client";
export { InProcessAGUIClient } from "./in-process-agui-client";
export type {
  AgentErrorInfo,
  AgentSnapshot,
  ChatMessage,
  CustomEventRecord,
  InterruptAnswer,
  OpenInterrupt,
  RunStatus,
  ToolCallError,
  ToolCallStatus,
  ToolCallView,
} from "./snapshot";
export { readToolResult, type ToolOutcome } from "./tool-result";
export type { AGUIAgent, AgentClient, StreamOptions } from "./types";
