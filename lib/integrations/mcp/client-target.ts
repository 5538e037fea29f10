import { z } from "zod";
import { parseUntrusted } from "../../json/untrusted";
import { storedAllowance } from "../../net/address-policy";

/** Header and environment names: what HTTP and POSIX shells accept, nothing that could smuggle a second line. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** Headers the transport sets itself, or that would change what the connection is: never taken from an import. */
const RESERVED_HEADERS = new Set([
  "accept",
  "connection",
  "content-length",
  "content-type",
  "host",
  "mcp-protocol-version",
  "mcp-session-id",
  "transfer-encoding",
  "last-event-id",
]);

const headerMap = z
  .record(
    z.string().regex(HEADER_NAME, "is not a header name"),
    z
      .string()
      .max(8192)
      .regex(/^[^\r\n\0]*$/, "holds a line break"),
  )
  .refine((headers) => Object.keys(headers).length <= 50, "at most 50 headers")
  .refine((headers) => !Object.keys(headers).some((name) => RESERVED_HEADERS.has(name.toLowerCase())), {
    message: `must not set ${[...RESERVED_HEADERS].join(", ")} (the transport sets them)`,
  });

const envMap = z
  .record(
    z.string().regex(ENV_NAME, "is not an environment variable name"),
    z
      .string()
      .max(32_768)
      .regex(/^[^\0]*$/, "holds a NUL"),
  )
  .refine((env) => Object.keys(env).length <= 100, "at most 100 variables");

/** Where an MCP server is, as stored on its source (no secret in it). */
export const McpTarget = z.discriminatedUnion("transport", [
  z
    .object({
      transport: z.literal("http"),
      /** The server's Streamable HTTP endpoint. */
      url: z.string().trim().min(1).max(2000),
      /** Headers sent on every request and shown in listings (secret ones go in McpSecrets). */
      headers: headerMap.optional(),
    })
    .strict(),
  z
    .object({
      transport: z.literal("stdio"),
      /** The program, run without a shell. */
      command: z
        .string()
        .trim()
        .min(1)
        .max(1000)
        .regex(/^[^\0\r\n]*$/, "holds a line break"),
      args: z
        .array(
          z
            .string()
            .max(4000)
            .regex(/^[^\0]*$/, "holds a NUL"),
        )
        .max(100)
        .optional(),
      cwd: z.string().trim().min(1).max(1000).optional(),
      /** Environment variables shown in listings; the console's own environment is never passed on. */
      env: envMap.optional(),
    })
    .strict(),
]);
export type McpTarget = z.infer<typeof McpTarget>;

/** The secret part of a connection: stored in the source's secret column, never listed or logged. */
export const McpSecrets = z
  .object({
    headers: headerMap.optional(),
    env: envMap.optional(),
  })
  .strict();
export type McpSecrets = z.infer<typeof McpSecrets>;

/** What an import keeps on the source row besides the target, for refreshes and rebuilt connections. */
export interface McpStoredOptions {
  target: McpTarget;
  prefix?: string;
  /** An admin's allowance of private addresses for this source (HTTP only). */
  allow?: string[];
  timeoutMs?: number;
}

/** How the source's location reads in listings: the URL, or the command line. */
export function targetLocation(target: McpTarget): string {
  if (target.transport === "http") return target.url;
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return [target.command, ...(target.args ?? [])].map(quote).join(" ").slice(0, 2000);
}

/** The credential's public face on the source row (names only): what the source list shows. */
export function secretsRef(secrets: McpSecrets | undefined): Record<string, unknown> | null {
  const headers = Object.keys(secrets?.headers ?? {});
  const env = Object.keys(secrets?.env ?? {});
  if (!headers.length && !env.length) return null;
  if (headers.length === 1 && headers[0]!.toLowerCase() === "authorization" && !env.length) return { kind: "bearer" };
  if (headers.length) return { kind: "header", name: headers.join(", ") };
  return { kind: "env", name: env.join(", ") };
}

/** The secrets kept in the source's secret column, or none when it holds nothing usable. */
export function parseSecrets(stored: string | null | undefined): McpSecrets | undefined {
  if (!stored) return undefined;
  try {
    const parsed = McpSecrets.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The stored options of an MCP source, or undefined when the row does not hold a usable target. */
export function parseStoredOptions(options: Record<string, unknown> | undefined): McpStoredOptions | undefined {
  const target = parseUntrusted(McpTarget, options?.target);
  if (!target.success) return undefined;
  const allow = storedAllowance(options);
  return {
    target: target.data,
    ...(typeof options?.prefix === "string" && { prefix: options.prefix }),
    ...(allow?.length && { allow }),
    ...(typeof options?.timeoutMs === "number" && { timeoutMs: options.timeoutMs }),
  };
}
