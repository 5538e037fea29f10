/** The state of the "Add AG-UI agent" form; `aguiRequestBody` makes the test and add bodies from it. */
export interface AguiForm {
  /** The source's name: the agent becomes `remote:<name>`. */
  name: string;
  /** The AG-UI endpoint runs are POSTed to. */
  url: string;
  /** Sent as `Authorization: Bearer …` with every run, stored as a secret. */
  bearer: string;
  /** `Name: value` per line, stored as secrets and sent with every run. */
  secretHeaders: string;
  description: string;
  /** What this source may reach although private (an admin's allowance), comma separated. */
  allow: string;
}

export const EMPTY_AGUI: AguiForm = { name: "", url: "", bearer: "", secretHeaders: "", description: "", allow: "" };

/** The answer of POST /api/sources/agui/test. */
export interface AguiTestAnswer {
  location: string;
  check: "listing" | "reachability";
  detail: string;
  agent?: { name: string; description: string; model: string };
  warnings: string[];
}

/** The answer of POST /api/sources/agui. */
export interface AguiAddAnswer {
  source: { id: string; name: string };
  agent: { name: string };
  test: AguiTestAnswer;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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
export function aguiFormProblem(form: AguiForm): string | undefined {
  if (!form.name.trim()) return "Enter a name: the agent will be remote:<name>.";
  if (!NAME.test(form.name.trim())) return "The name takes letters, digits, dots, dashes and underscores (up to 64).";
  if (!form.url.trim()) return "Enter the AG-UI endpoint's URL.";
  if (!/^https?:\/\//i.test(form.url.trim())) return "The URL must start with http:// or https://.";
  return headerLines(form.secretHeaders).problem;
}

/** The body of POST /api/sources/agui/test and /api/sources/agui. */
export function aguiRequestBody(form: AguiForm) {
  const allow = form.allow
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const headers = headerLines(form.secretHeaders).value;
  return {
    name: form.name.trim(),
    url: form.url.trim(),
    ...(form.description.trim() && { description: form.description.trim() }),
    ...(form.bearer.trim() && { bearer: form.bearer.trim() }),
    ...(Object.keys(headers).length && { secrets: { headers } }),
    options: { ...(allow.length && { allow }) },
  };
}
