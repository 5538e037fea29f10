export { AguiBridge, BridgeRun, ThreadForbidden, type BridgeDeps, type StreamOptions } from "./bridge";
export { parseRunInput, INPUT_LIMITS } from "./input";
export { encodeFrame, isPre10Client, toPre10, needsDowngrade } from "./legacy";
