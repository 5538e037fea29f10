import type { AgentCard, Task } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from "@a2a-js/sdk/client";
import { jsonTextDepthExceeds, MAX_DOCUMENT_DEPTH } from "../../json/depth";
import { AddressNotAllowed, type OutboundGuard } from "../../net";
import type { McpSecrets } from "../mcp/client-target";
import { a2aFetch } from "./client-fetch";
import { A2AAgentUnreachable, A2AOptionsError } from "./import-errors";

/** Where an A2A agent (0.3 and 1.0) serves its card, under its base URL. */
export const A2A_CARD_PATH = "/.well-known/agent-card.json";
/** A card longer than this is refused: a card describes skills, it is not a document. */
export const MAX_CARD_BYTES = 1024 * 1024;

/** The secret headers an agent's requests carry (Authorization...): stored on the source, never listed. */
export type A2ASecrets = Pick<McpSecrets, "headers">;

/** Both protocol versions: 1.0 natively, 0.3 through the SDK's compatibility layer. */
const LEGACY = { legacyCompat: { enabled: true } };

/**
 * The agent's base URL as the console keeps it: http(s), no credentials, query or fragment, no
 * trailing slash; a URL of the card itself is taken as its base. Throws A2AOptionsError.
 */
export function agentBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new A2AOptionsError(`"${raw.slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new A2AOptionsError("The agent's URL must be http or https");
  if (url.username || url.password) throw new A2AOptionsError("Put credentials in the bearer token or the secret headers, not in the URL");
  if (url.search || url.hash) throw new A2AOptionsError("The agent's base URL takes no query or fragment");
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path.endsWith(A2A_CARD_PATH) ? path.slice(0, -A2A_CARD_PATH.length) : path}`;
}

/** Tasks left waiting for input, per principal and call: that principal's next identical call resumes the task rather than starting another. */
export class WaitingTasks {
  private readonly tasks = new Map<string, { taskId: string; contextId: string; at: number }>();

  constructor(
    private readonly max = 500,
    private readonly ttlMs = 24 * 3600_000,
  ) {}

  get(key: string): { taskId: string; contextId: string } | undefined {
    const entry = this.tasks.get(key);
    if (entry && Date.now() - entry.at > this.ttlMs) this.tasks.delete(key);
    return this.tasks.get(key);
  }

  remember(key: string, task: Pick<Task, "id" | "contextId">): void {
    this.tasks.delete(key);
    this.tasks.set(key, { taskId: task.id, contextId: task.contextId, at: Date.now() });
    // A Map iterates in insertion order: the first key is the oldest.
    while (this.tasks.size > this.max) this.tasks.delete(this.tasks.keys().next().value!);
  }

  forget(key: string): void {
    this.tasks.delete(key);
  }
}

export interface A2AConnectionOptions {
  baseUrl: string;
  /** The card as the agent served it (JSON), kept on the source to rebuild the connection. */
  cardText: string;
  secrets?: A2ASecrets;
  outbound: OutboundGuard;
  /** Shared by the connections one source has over time (a refresh keeps them). */
  waiting?: WaitingTasks;
}

/**
 * An A2A client for one agent, built from the card it served. Every request goes through the
 * outbound guard, carries the secret headers only to the agent's origin, and is read up to a cap.
 */
export class A2AConnection {
  readonly baseUrl: string;
  readonly cardText: string;
  /** The card as the SDK reads it (0.3 cards translated to 1.0); read its fields as optional. */
  readonly card: AgentCard;
  readonly waiting: WaitingTasks;
  private client: Promise<Client> | undefined;
  private readonly factory: ClientFactory;
  private readonly secretValues: string[];

  constructor(options: A2AConnectionOptions) {
    this.baseUrl = options.baseUrl;
    this.cardText = options.cardText;
    this.waiting = options.waiting ?? new WaitingTasks();
    // A header's value, and the token of an `Authorization: Bearer …`, are blanked wherever an agent echoes them.
    this.secretValues = Object.values(options.secrets?.headers ?? {})
      .flatMap((value) => [value, value.replace(/^\S+\s+/, "")])
      .filter((value) => value.length >= 4)
      .sort((a, b) => b.length - a.length);
    const fetchImpl = a2aFetch({ outbound: options.outbound, origin: new URL(options.baseUrl).origin, headers: options.secrets?.headers });
    const resolver = new DefaultAgentCardResolver({ ...LEGACY, fetchImpl });
    this.card = parseCard(resolver, options.cardText);
    this.factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        cardResolver: resolver,
        transports: [new JsonRpcTransportFactory({ ...LEGACY, fetchImpl }), new RestTransportFactory({ ...LEGACY, fetchImpl })],
      }),
    );
  }

  /** `text` with every secret header value the connection sends blanked (an agent may echo one in an error). */
  redact(text: string): string {
    return this.secretValues.reduce((out, secret) => out.split(secret).join("[secret]"), text);
  }

  /** The SDK client for the card's first usable interface. Throws A2AOptionsError when it names none. */
  connected(): Promise<Client> {
    this.client ??= this.factory.createFromAgentCard(this.card).catch((error: unknown) => {
      this.client = undefined;
      throw new A2AOptionsError(
        `The agent card names no interface the console can use (JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3): ${messageOf(error)}`,
      );
    });
    return this.client;
  }
}

/**
 * Fetch an agent's card through the guard and open a connection from it. Throws A2AOptionsError
 * (a bad URL, a card that is no card), A2AAgentUnreachable (refused address, no answer, an HTTP
 * error, an answer over the cap).
 */
export async function openA2AConnection(input: {
  url: string;
  secrets?: A2ASecrets;
  outbound: OutboundGuard;
  waiting?: WaitingTasks;
}): Promise<A2AConnection> {
  const baseUrl = agentBaseUrl(input.url);
  const cardUrl = `${baseUrl}${A2A_CARD_PATH}`;
  const fetchImpl = a2aFetch({
    outbound: input.outbound,
    origin: new URL(baseUrl).origin,
    headers: input.secrets?.headers,
    maxResponseBytes: MAX_CARD_BYTES,
  });
  let response: Response;
  try {
    response = await fetchImpl(cardUrl, { headers: { "A2A-Version": "1.0", accept: "application/json" } });
  } catch (error) {
    if (error instanceof A2AAgentUnreachable) throw error;
    if (error instanceof AddressNotAllowed) throw new A2AAgentUnreachable(`The agent's address is not allowed: ${error.message}`);
    throw new A2AAgentUnreachable(`The agent card at ${cardUrl} cannot be fetched: ${messageOf(error)}`);
  }
  if (!response.ok) throw new A2AAgentUnreachable(`The agent card at ${cardUrl} answered HTTP ${response.status}`);
  const cardText = await response.text();
  return new A2AConnection({ baseUrl, cardText, secrets: input.secrets, outbound: input.outbound, waiting: input.waiting });
}

function parseCard(resolver: DefaultAgentCardResolver, text: string): AgentCard {
  // Checked before parsing: what runs over the parsed card afterwards may recurse.
  if (jsonTextDepthExceeds(text, MAX_DOCUMENT_DEPTH))
    throw new A2AOptionsError(`The agent card nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new A2AOptionsError("The agent card is not JSON");
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new A2AOptionsError("The agent card is not a JSON object");
  try {
    return resolver.normalizeAgentCard(raw);
  } catch (error) {
    throw new A2AOptionsError(`The agent card cannot be read: ${messageOf(error)}`);
  }
}

/** An error's message for a person, with its cause's when fetch hid it there. */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return (cause instanceof Error && cause.message ? `${error.message} (${cause.message})` : error.message).slice(0, 1000);
}
