import { AgentCard } from "@a2a-js/sdk";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import type { ToolRegistry } from "../../tools/registry";
import type { RegisteredTool } from "../../tools/spec";
import { toA2ASkill } from "./agent-skills";

/** The card extension whose params carry each skill's JSON input schema, so importers rebuild typed tools. */
export const TOOLS_EXTENSION = "urn:agui-console:a2a:tools:v1";
const BEARER_DESCRIPTION = "A console API token with the a2a scope";
/** The path of the JSON-RPC endpoint, under the console's base URL. */
export const A2A_ENDPOINT_PATH = "/api/a2a";

export interface CardOptions {
  /** The JSON-RPC URL written in the card. */
  url: string;
  version: string;
  /** Anonymous callers are refused (not the loopback console reached by a local name): the card names the bearer scheme. */
  tokensRequired: boolean;
}

/**
 * The console's agent card: one skill per enabled tool exported to a2a (id and name are the tool's
 * name), streaming, the JSON-RPC interface at `url` in protocol 1.0 and 0.3, the bearer scheme when
 * tokens are required, and the TOOLS_EXTENSION with each skill's input schema.
 */
export function buildAgentCard(tools: readonly RegisteredTool[], options: CardOptions): AgentCard {
  const skills = tools.map((tool) => {
    const skill = toA2ASkill(tool).output;
    // An empty tag list vanishes from the card's JSON, and tags are required: every skill keeps one.
    return { ...skill, name: tool.name, tags: skill.tags.length ? skill.tags : ["tool"] };
  });
  const schemes = options.tokensRequired
    ? {
        securitySchemes: {
          bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: BEARER_DESCRIPTION } },
        },
        securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      }
    : {};
  return AgentCard.fromJSON({
    name: "agui-console",
    description:
      "The tools of an AG-UI Console. Send a data part {tool, arguments} to call a tool, or text to chat with the console's " +
      "default agent. A call that waits for a person's approval leaves its task input-required; send any message on the task to resume it.",
    version: options.version,
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url: options.url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
      ["JSONRPC"],
    ),
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: TOOLS_EXTENSION,
          description: "params.tools maps each skill id to the JSON Schema of its arguments (send them as {tool, arguments}).",
          required: false,
          params: { tools: Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema])) },
        },
      ],
    },
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills,
    ...schemes,
  });
}

/**
 * The card's JSON as a client of `version` reads it. 1.0 gets the SDK's own JSON form (ProtoJSON,
 * schema-valid); 0.3 (or no version) also gets the top-level url, preferredTransport and
 * protocolVersion that 0.3 clients look for, and the bearer scheme in 0.3's form (a `type`
 * discriminator, and `security` for the requirements). Empty lists the JSON form drops are put back.
 */
export function agentCardJson(card: AgentCard, version: string | undefined): Record<string, unknown> {
  const json = AgentCard.toJSON(card) as Record<string, unknown>;
  json.skills ??= [];
  if (version !== undefined && version !== "0.3") return json;
  const legacy = card.supportedInterfaces.find((i) => i.protocolVersion === "0.3") ?? card.supportedInterfaces[0]!;
  // 1.0's forms of the scheme and its requirements leave; 0.3's take their place when there is one.
  const rest = { ...json };
  delete rest.securitySchemes;
  delete rest.securityRequirements;
  const bearer = Object.keys(card.securitySchemes).length > 0;
  return {
    ...rest,
    url: legacy.url,
    preferredTransport: legacy.protocolBinding,
    protocolVersion: "0.3.0",
    ...(bearer && {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: BEARER_DESCRIPTION } },
      security: [{ bearer: [] }],
    }),
  };
}

/** The registry's card, built again only after the registry changed or the URL differs. */
export class AgentCardCache {
  private cached: { key: string; card: AgentCard } | undefined;

  constructor(private readonly registry: ToolRegistry) {
    registry.onChange(() => {
      this.cached = undefined;
    });
  }

  get(options: CardOptions): AgentCard {
    const key = `${options.url}\u0000${options.tokensRequired}`;
    if (this.cached?.key !== key) this.cached = { key, card: buildAgentCard(this.registry.forTarget("a2a"), options) };
    return this.cached.card;
  }
}
