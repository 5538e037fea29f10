import { randomUUID } from "node:crypto";
import { Message as A2AMessage, type Part } from "@a2a-js/sdk";

/** A message from the console's agent on a task (a status's reason or result), with `parts` as given. */
export function agentMessage(taskId: string, contextId: string, parts: Part[]): A2AMessage {
  const message = A2AMessage.fromJSON({ messageId: randomUUID(), taskId, contextId, role: "ROLE_AGENT", parts: [] });
  // Set after fromJSON: the parts are already the SDK's objects, not their JSON.
  message.parts = parts;
  return message;
}

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, mediaType: "text/plain", filename: "", metadata: undefined };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, mediaType: "application/json", filename: "", metadata: undefined };
}
