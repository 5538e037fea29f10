export { AguiBridge, BridgeRun, ThreadForbidden, type BridgeDeps } from "./bridge";
export { aguiEndpoint, type AguiEndpointDeps } from "./endpoint";
export { historyHandlers, type HistoryDeps } from "./history";
export { parseRunInput, readBoundedBody, INPUT_LIMITS } from "./input";
export { isPre10Client, toPre10 } from "./legacy";
export { SSE_HEADERS, encodeFrame, sseBody } from "./sse";
