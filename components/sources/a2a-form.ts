/** The state of the "Add A2A agent" form; `a2aRequestBody` makes the test and import bodies from it. */
export interface A2AForm {
  name: string;
  /** The agent's base URL: its card is at /.well-known/agent-card.json under it. */
  url: string;
  /** Sent as `Authorization: Bearer …` to the agent's origin only, stored as a secret. */
  bearer: string;
  /** `Name: value` per line, stored as secrets and sent to the agent's origin only. */
  secretHeaders: string;
  prefix: string;
  /** What this source may reach although private (an admin's allowance), comma separated. */
  allow: string;
}

export const EMPTY_A2A: A2AForm = { name: "", url: "", bearer: "", secretHeaders: "", prefix: "", allow: "" };

/** The card as the console shows it (the answer of POST /api/sources/a2a/test, and `options.card` of an A2A source). */
export interface A2ACardView {
  name: string;
  description: string;
  version: string;
  protocolVersion: string;
  skills: Array<{ id: string; name: string; description: string; tags: string[] }>;
}

/** The answer of POST /api/sources/a2a/test. */
export interface A2ATestAnswer {
  card: A2ACardView;
  location: string;
  tools: Array<{ skillId: string; toolName: string; title: string; description: string; typed: boolean }>;
  warnings: string[];
}

function headerLines(text: string): { value: Record<string, string>; problem?: string } {
  const value: Record<string, string> = {};
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (!line) continue;
    const at = line.indexOf(":");
    if (at <= 0) return { value, problem: `“${line.slice(0, 40)}” is not Name: value` };
    value[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { value };
}

/** What is missing or malformed before the form can be sent, or undefined when it is ready. */
export function a2aFormProblem(form: A2AForm): string | undefined {
  if (!form.url.trim()) return "Enter the agent's base URL.";
  if (!/^https?:\/\//i.test(form.url.trim())) return "The URL must start with http:// or https://.";
  return headerLines(form.secretHeaders).problem;
}

/** The body of POST /api/sources/a2a/test and /api/sources/a2a. */
export function a2aRequestBody(form: A2AForm) {
  const allow = form.allow
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const headers = headerLines(form.secretHeaders).value;
  return {
    url: form.url.trim(),
    ...(form.name.trim() && { name: form.name.trim() }),
    ...(form.bearer.trim() && { bearer: form.bearer.trim() }),
    ...(Object.keys(headers).length && { secrets: { headers } }),
    options: { ...(form.prefix.trim() && { prefix: form.prefix.trim() }), ...(allow.length && { allow }) },
  };
}

/** The card an A2A source keeps in its options, when it reads as one. */
export function cardOfSource(options: Record<string, unknown>): A2ACardView | undefined {
  const card = options.card as Partial<A2ACardView> | undefined;
  if (!card || typeof card !== "object" || typeof card.name !== "string" || !Array.isArray(card.skills)) return undefined;
  return {
    name: card.name,
    description: String(card.description ?? ""),
    version: String(card.version ?? ""),
    protocolVersion: String(card.protocolVersion ?? ""),
    skills: card.skills,
  };
}
