/** How the console reaches the server. */
export type McpTransport = "http" | "stdio";

/** The state of the "Add MCP server" form; `mcpRequestBody` makes the test and import bodies from it. */
export interface McpForm {
  transport: McpTransport;
  name: string;
  url: string;
  /** Sent as `Authorization: Bearer …`, stored as a secret. */
  bearer: string;
  /** `Name: value` per line, shown in listings. */
  headers: string;
  /** `Name: value` per line, stored as secrets. */
  secretHeaders: string;
  command: string;
  /** One argument per line (no shell: spaces stay inside an argument). */
  args: string;
  cwd: string;
  /** `NAME=value` per line, shown in listings. */
  env: string;
  /** `NAME=value` per line, stored as secrets. */
  secretEnv: string;
  prefix: string;
  /** What this source may reach although private (an admin's allowance), comma separated. */
  allow: string;
}

export const EMPTY_MCP: McpForm = {
  transport: "http",
  name: "",
  url: "",
  bearer: "",
  headers: "",
  secretHeaders: "",
  command: "",
  args: "",
  cwd: "",
  env: "",
  secretEnv: "",
  prefix: "",
  allow: "",
};

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** `Name: value` (headers) or `NAME=value` (environment) lines as a map; a line without the separator is a problem. */
function pairs(text: string, separator: ":" | "="): { value: Record<string, string>; problem?: string } {
  const value: Record<string, string> = {};
  for (const line of lines(text)) {
    const at = line.indexOf(separator);
    if (at <= 0) return { value, problem: `“${line.slice(0, 40)}” is not ${separator === ":" ? "Name: value" : "NAME=value"}` };
    value[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { value };
}

/** What is missing or malformed before the form can be sent, or undefined when it is ready. */
export function mcpFormProblem(form: McpForm): string | undefined {
  if (form.transport === "http") {
    if (!form.url.trim()) return "Enter the server's URL.";
    if (!/^https?:\/\//i.test(form.url.trim())) return "The URL must start with http:// or https://.";
    return pairs(form.headers, ":").problem ?? pairs(form.secretHeaders, ":").problem;
  }
  if (!form.command.trim()) return "Enter the command that starts the server.";
  if (form.cwd.trim() && !form.cwd.trim().startsWith("/")) return "The working directory must be an absolute path.";
  return pairs(form.env, "=").problem ?? pairs(form.secretEnv, "=").problem;
}

/** The body of POST /api/sources/mcp/test and /api/sources/mcp. */
export function mcpRequestBody(form: McpForm) {
  const allow = form.allow
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const options = { ...(form.prefix.trim() && { prefix: form.prefix.trim() }), ...(allow.length && { allow }) };
  const name = form.name.trim() ? { name: form.name.trim() } : {};
  if (form.transport === "http") {
    const headers = pairs(form.headers, ":").value;
    const secret = pairs(form.secretHeaders, ":").value;
    return {
      ...name,
      target: { transport: "http", url: form.url.trim(), ...(Object.keys(headers).length && { headers }) },
      ...(Object.keys(secret).length && { secrets: { headers: secret } }),
      ...(form.bearer.trim() && { bearer: form.bearer.trim() }),
      options,
    };
  }
  const env = pairs(form.env, "=").value;
  const secret = pairs(form.secretEnv, "=").value;
  return {
    ...name,
    target: {
      transport: "stdio",
      command: form.command.trim(),
      args: lines(form.args),
      ...(form.cwd.trim() && { cwd: form.cwd.trim() }),
      ...(Object.keys(env).length && { env }),
    },
    ...(Object.keys(secret).length && { secrets: { env: secret } }),
    options,
  };
}
