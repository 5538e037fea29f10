export { AguiBridge, BridgeRun, ThreadForbidden, type BridgeDeps, type StreamOptions } from "./bridge";
export { aguiEndpoint, type AguiEndpointDeps } from "./endpoint";
export { historyHandlers, type HistoryDeps } from "./history";
export { parseRunInput, readBoundedBody, INPUT_LIMITS } from "./input";
export { isPre10Client, toPre10, needsDowngrade } from "./legacy";
export { SSE_HEADERS, encodeFrame, jsonFrame, sseBody } from "./sse";
