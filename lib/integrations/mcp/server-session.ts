import { randomUUID } from "node:crypto";
import { isJsonObject } from "../../json/canonical";

/** What the console needs to know of a client beyond one request: what it declared at initialize. */
export interface ClientFeatures {
  /** The client opens URL-mode elicitations (a link to the approval's page). */
  urlElicitation: boolean;
}

const NONE: ClientFeatures = { urlElicitation: false };

/**
 * The features a client declared in an `initialize` request's capabilities, or undefined when the
 * message is not an initialize request.
 */
export function declaredFeatures(message: unknown): ClientFeatures | undefined {
  if (!isJsonObject(message) || message.method !== "initialize") return undefined;
  const params = isJsonObject(message.params) ? message.params : {};
  const capabilities = isJsonObject(params.capabilities) ? params.capabilities : {};
  const elicitation = isJsonObject(capabilities.elicitation) ? capabilities.elicitation : {};
  return { urlElicitation: isJsonObject(elicitation.url) };
}

/**
 * A session id that carries the client's features. The server keeps no session: every request
 * reaches a fresh server, which reads what the client declared at initialize back from the id the
 * client sends with each request. The features are the client's own claims about itself, so an
 * altered id changes only how that client is told that a call waits.
 */
export function sessionIdFor(features: ClientFeatures): string {
  return `${randomUUID()}.${features.urlElicitation ? "u" : "-"}`;
}

/** The features carried by a session id from sessionIdFor; none for a missing or foreign id. */
export function featuresOf(sessionId: string | null): ClientFeatures {
  const flags = sessionId ? /^[0-9a-f-]{36}\.([u-])$/.exec(sessionId)?.[1] : undefined;
  return flags ? { urlElicitation: flags === "u" } : NONE;
}

/** Whether a JSON-RPC message (or any message of a batch) asks for one of the tasks/* methods. */
export function readsTasks(message: unknown): boolean {
  if (Array.isArray(message)) return message.some(readsTasks);
  return isJsonObject(message) && typeof message.method === "string" && message.method.startsWith("tasks/");
}
