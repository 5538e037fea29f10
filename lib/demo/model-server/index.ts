import { anthropicWire } from "./anthropic";
import { demoResponder } from "./demo-responder";
import { geminiWire } from "./gemini";
import { openAIChatWire } from "./openai-chat";
import { openAIResponsesWire } from "./openai-responses";
import type { WireFormat } from "./script";
import { ScriptedModelServer } from "./server";

export { ScriptedModelServer, type ScriptedModelServerOptions } from "./server";
export { demoResponder } from "./demo-responder";
export type { ScriptedFailure, ScriptedReply, ScriptedToolCall, ScriptedTurn, RecordedRequest, WireFormat } from "./script";
export { anthropicWire, geminiWire, openAIChatWire, openAIResponsesWire };

/** Every provider wire format the scripted server speaks. */
export const WIRE_FORMATS: readonly WireFormat[] = [openAIChatWire, openAIResponsesWire, anthropicWire, geminiWire];

let offline: Promise<ScriptedModelServer> | undefined;

/**
 * The console's own scripted model provider on 127.0.0.1 (any free port), answering every wire
 * format with the demo responder: the framework demo agents talk to it through their real SDKs
 * when no provider key is set, so they run offline. Started on first use, once per process.
 */
export function offlineModelServer(): Promise<ScriptedModelServer> {
  offline ??= ScriptedModelServer.start({ formats: WIRE_FORMATS, responder: demoResponder() }).catch((error: unknown) => {
    offline = undefined;
    throw error;
  });
  return offline;
}

/** The base URL drivers are given for the offline server; `offlineFetch` sends it to the real port. */
export const OFFLINE_MODEL_BASE_URL = "http://offline-model.invalid";

/**
 * A fetch that sends requests for OFFLINE_MODEL_BASE_URL to the offline model server (started on
 * first use), so a driver or SDK can be built before the server has a port. Anything else is refused.
 */
export const offlineFetch: typeof fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (!url.startsWith(OFFLINE_MODEL_BASE_URL)) throw new TypeError(`The offline model fetch only reaches ${OFFLINE_MODEL_BASE_URL}`);
  const server = await offlineModelServer();
  const target = server.url + url.slice(OFFLINE_MODEL_BASE_URL.length);
  return input instanceof Request ? fetch(new Request(target, input), init) : fetch(target, init);
};
