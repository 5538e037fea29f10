import { localToolName, namePrefix, uniqueLocalName } from "../../tools/remote-names";
import type { AgentCard } from "@a2a-js/sdk";
import { ToolDefinitionError } from "../../tools/errors";
import { normalise } from "../../tools/registry";
import type { JsonSchema, ToolSpecInput } from "../../tools/spec";
import { portableSchema } from "../mcp/plan-mcp-tools";
import { A2AOptionsError } from "./import-errors";
import { TOOLS_EXTENSION } from "./server-card";

/** What an A2A tool's handler needs to be rebuilt after a restart: the skill, and how it is called. */
export interface A2ABinding {
  skillId: string;
  /** The card gave the skill's argument schema: the call is a data part {tool, arguments}; else the text of `message`. */
  typed: boolean;
}

/** The card as the source list shows it (kept in the source's options). */
export interface A2ACardSummary {
  name: string;
  description: string;
  version: string;
  /** The protocol of the interface the console talks to: "1.0" or "0.3". */
  protocolVersion: string;
  skills: Array<{ id: string; name: string; description: string; tags: string[] }>;
}

export interface PlannedA2ATool {
  skillId: string;
  spec: ToolSpecInput & { name: string; binding: Record<string, unknown> };
  typed: boolean;
}

export interface A2APlan {
  tools: PlannedA2ATool[];
  warnings: string[];
  card: A2ACardSummary;
}

export interface A2APlanOptions {
  /** Put before every local name; letters, digits and _ only (others become _). */
  prefix?: string;
  /** The call time limit of every tool, ms (default A2A_DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** A remote agent may take a while: its tools get two minutes unless the import says otherwise. */
export const A2A_DEFAULT_TIMEOUT_MS = 120_000;
/** A card with more skills than this is refused. */
export const MAX_SKILLS = 500;
const MAX_DESCRIPTION = 8192;

/** The arguments of a skill the card gives no schema for: one request in plain words. */
export const MESSAGE_SCHEMA: JsonSchema = {
  type: "object",
  properties: { message: { type: "string", minLength: 1, maxLength: 100_000, description: "What to ask the agent, in plain words" } },
  required: ["message"],
  additionalProperties: false,
};

/**
 * The console's tools for a card's skills, one per skill: typed arguments when the card's
 * TOOLS_EXTENSION gives the skill's schema (called as {tool, arguments}), else `{message}` sent as
 * text. Names are the skill ids, sanitised, prefixed and unique. A remote agent says nothing about
 * effects, so every tool is an open-world write that is not idempotent; operators choose approvals
 * in /tools. A skill the registry would refuse is left out with a warning. Throws A2AOptionsError
 * for a bad prefix or a card with more than MAX_SKILLS skills.
 */
export function planA2ATools(card: AgentCard, options: A2APlanOptions = {}): A2APlan {
  const checked = namePrefix(options.prefix ?? "");
  if ("problem" in checked) throw new A2AOptionsError(checked.problem);
  const { prefix } = checked;
  const summary = summariseCard(card);
  const schemas = extensionSchemas(card);
  const warnings: string[] = [];
  const tools: PlannedA2ATool[] = [];
  const taken = new Set<string>();
  for (const skill of summary.skills) {
    const schema = Object.hasOwn(schemas, skill.id) ? schemas[skill.id] : undefined;
    const typed = isObjectSchema(schema);
    if (schema !== undefined && !typed)
      warnings.push(`Skill "${skill.id}": its schema in the card is not an object schema, so it takes a message`);
    const name = uniqueLocalName(localToolName(prefix, skill.id, "skill"), skill.id, taken);
    const spec = {
      name,
      title: skill.name.trim().slice(0, 200) || name,
      description: (skill.description || `The skill ${skill.id} of the agent ${summary.name}`).slice(0, MAX_DESCRIPTION),
      inputSchema: typed ? portableSchema(schema as JsonSchema) : structuredClone(MESSAGE_SCHEMA),
      policy: {
        effects: "write" as const,
        confirm: false,
        idempotent: false,
        openWorld: true,
        tags: ["a2a"],
        timeoutMs: options.timeoutMs ?? A2A_DEFAULT_TIMEOUT_MS,
      },
      kind: "a2a",
      binding: { skillId: skill.id, typed } satisfies A2ABinding as unknown as Record<string, unknown>,
    };
    try {
      normalise(spec);
    } catch (error) {
      if (!(error instanceof ToolDefinitionError)) throw error;
      warnings.push(`Skill "${skill.id}" skipped: ${error.message}`);
      continue;
    }
    taken.add(name);
    if (name !== `${prefix}${skill.id}`) warnings.push(`Skill "${skill.id}" is registered as "${name}"`);
    tools.push({ skillId: skill.id, spec, typed });
  }
  return { tools, warnings, card: summary };
}

/**
 * The card's name, version and skills, read defensively: the SDK hands back a card's JSON as the
 * agent wrote it, so any field may be missing or of another type. Throws A2AOptionsError for more
 * than MAX_SKILLS skills.
 */
export function summariseCard(card: AgentCard): A2ACardSummary {
  const raw = card as unknown as Record<string, unknown>;
  const skills = Array.isArray(raw.skills) ? (raw.skills as unknown[]) : [];
  if (skills.length > MAX_SKILLS)
    throw new A2AOptionsError(`The agent card lists ${skills.length} skills; the console imports at most ${MAX_SKILLS}`);
  const interfaces = Array.isArray(raw.supportedInterfaces) ? (raw.supportedInterfaces as Array<Record<string, unknown>>) : [];
  const seen = new Set<string>();
  return {
    name: text(raw.name, 200) || "A2A agent",
    description: text(raw.description, 2000),
    version: text(raw.version, 100),
    protocolVersion: text(interfaces[0]?.protocolVersion, 20),
    skills: skills.flatMap((entry) => {
      const skill = entry && typeof entry === "object" ? (entry as Record<string, unknown>) : {};
      const id = text(skill.id, 300);
      if (!id || seen.has(id)) return [];
      seen.add(id);
      const tags = Array.isArray(skill.tags) ? skill.tags.filter((t): t is string => typeof t === "string").slice(0, 16) : [];
      return [
        {
          id,
          name: text(skill.name, 200) || id,
          description: text(skill.description, MAX_DESCRIPTION),
          tags: tags.map((t) => t.slice(0, 64)),
        },
      ];
    }),
  };
}

/** The argument schemas the console's own extension carries, by skill id (none when the card has no such extension). */
function extensionSchemas(card: AgentCard): Record<string, unknown> {
  const extensions = (card.capabilities as { extensions?: unknown } | undefined)?.extensions;
  if (!Array.isArray(extensions)) return {};
  const extension = extensions.find((e) => e && typeof e === "object" && (e as { uri?: unknown }).uri === TOOLS_EXTENSION) as
    { params?: { tools?: unknown } } | undefined;
  const tools = extension?.params?.tools;
  return tools && typeof tools === "object" && !Array.isArray(tools) ? (tools as Record<string, unknown>) : {};
}

function isObjectSchema(schema: unknown): boolean {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return false;
  const type = (schema as { type?: unknown }).type;
  return type === undefined || type === "object";
}

function text(value: unknown, max: number): string {
  return typeof value === "string" ? value.trim().slice(0, max) : "";
}
