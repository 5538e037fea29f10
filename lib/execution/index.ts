export * from "./errors";
export * from "./result";
export { Executor, type ExecutorOptions, type CallOptions, type CallEvent, type ToolCallRequest } from "./executor";
export type { CallRecord, CallKey } from "./call-record";
export { newCallId, newToolCallId } from "./call-id";
export { currentRunContext, withRunContext, newRunContext, type RunContext, type Surface } from "./context";
export { allowAll, type ApprovalPort, type ApprovalCheck, type ApprovalVerdict } from "./approval-port";
