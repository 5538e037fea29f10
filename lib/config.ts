import net from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DomainError } from "./errors";
import { NOTHING_ALLOWED, parseAllowance } from "./net/address-policy";
import { parseOriginList } from "./http/cors";
import { parseModelRef } from "./agents/models/model-ref";

/** Raised when an environment variable holds a value the console cannot use. */
export class ConfigError extends DomainError<"config_error"> {
  override readonly name = "ConfigError";
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super("config_error", message);
  }
}

const port = z.coerce
  .number({ message: "must be a number" })
  .int("must be an integer")
  .min(1, "must be at least 1")
  .max(65535, "must be at most 65535");

const positiveInt = (max: number) =>
  z.coerce
    .number({ message: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(max, `must be at most ${max}`);

/** A provider key: taken as it is (the provider judges it); never echoed in an error (see SECRETS). */
const apiKey = z.string().trim().min(1, "must not be empty").max(1000, "must be at most 1000 characters").optional();

/** An API's base URL: http or https, no credentials in it (they would end up in logs). */
const baseUrl = z
  .string()
  .trim()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http or https URL")
  .refine(
    (value) => !URL.canParse(value) || (!new URL(value).username && !new URL(value).password),
    "must not hold a user name or password",
  )
  .transform((value) => value.replace(/\/+$/, ""))
  .optional();

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** An IP address (IPv6 with or without brackets) or a host name. */
const isHost = (value: string): boolean => net.isIP(value.replace(/^\[(.*)\]$/, "$1")) !== 0 || HOST_NAME.test(value);

const hostList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  )
  .refine((hosts) => hosts.length > 0, "lists no host name: give names separated by commas, or unset it")
  .refine((hosts) => hosts.every((h) => h === "*" || isHost(h)), "must be host names separated by commas (or *)");

const EnvSchema = z.object({
  HOST: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .refine(isHost, "must be an IP address or a host name of this machine")
    .default("127.0.0.1"),
  PORT: port.default(3000),
  CONSOLE_DB: z.string().trim().min(1, "must not be empty").default("./data/console.db"),
  /**
   * A PostgreSQL database (postgres:// or postgresql://) shared by every console instance given the
   * same URL; unset, the console runs on the SQLite file CONSOLE_DB.
   */
  DATABASE_URL: z
    .string()
    .trim()
    .refine((value) => /^postgres(ql)?:\/\/./i.test(value), "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** Create CONSOLE_DB even though a console used a database there before and it is now missing ("1"). */
  CONSOLE_DB_CREATE: z
    .enum(["0", "1"], { message: 'must be "0" or "1"' })
    .default("0")
    .transform((v) => v === "1"),
  /** Where the console keeps what must outlive a data folder: the list of databases it has used. */
  CONSOLE_STATE_DIR: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .default(() => path.join(os.homedir(), ".local", "state", "agui-console")),
  /** How long an approval waits for a decision before it expires. */
  APPROVAL_TTL_SECONDS: positiveInt(30 * 24 * 3600).default(24 * 3600),
  /** How often pending approvals past their time are marked expired. */
  APPROVAL_SWEEP_SECONDS: positiveInt(3600).default(15),
  /** Largest AG-UI request body accepted. */
  AGUI_MAX_BODY_BYTES: positiveInt(64 * 1024 * 1024).default(1024 * 1024),
  /** How long an AG-UI stream waits for a client that takes nothing before its run is cancelled. */
  AGUI_STALL_MS: positiveInt(24 * 3600 * 1000).default(30_000),
  /** Host names served besides the local ones (comma separated; "*" serves any). */
  ALLOWED_HOSTS: hostList.default([]),
  /**
   * Origins whose pages may call the AG-UI, MCP and A2A endpoints from a browser with a bearer
   * token (comma separated, e.g. https://app.example.com); empty: none but the console's own.
   */
  CORS_ORIGINS: z
    .string()
    .transform((value, ctx) => {
      try {
        return parseOriginList(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `has ${(error as Error).message}` });
        return z.NEVER;
      }
    })
    .default([]),
  LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"], { message: "must be one of debug, info, warn, error, silent" })
    .default("info"),
  /** Pause between streamed deltas of the demo agents, for a readable typing effect (0: as fast as possible). */
  AGENT_STREAM_DELAY_MS: z.coerce
    .number({ message: "must be a number" })
    .int("must be an integer")
    .min(0, "must be at least 0")
    .max(1000, "must be at most 1000")
    .default(12),
  /**
   * What imports and tool calls may reach although private (loopback, private networks, link-local...):
   * CIDR ranges, addresses and host names, comma separated. Empty: public addresses only.
   */
  OUTBOUND_ALLOW: z
    .string()
    .transform((value, ctx) => {
      try {
        return parseAllowance(value.split(","));
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `has ${(error as Error).message}` });
        return z.NEVER;
      }
    })
    .default(NOTHING_ALLOWED),
  /**
   * A secret that signs an operator in to the pages as admin (the only role that may widen a
   * source's outbound allowance). Unset: admins are the local user and tokens with the admin scope.
   */
  ADMIN_TOKEN: z.string().trim().min(32, "must be at least 32 characters (e.g. `openssl rand -base64 32`)").optional(),
  /**
   * The address people open the console at when it is not only on loopback, e.g.
   * https://console.example. An https URL makes the session cookie Secure.
   */
  PUBLIC_URL: z
    .string()
    .trim()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http or https URL")
    .optional(),
  /** Let an A2A client decide the approval its own task waits on with a data part {approval_id, approved} ("1"). */
  A2A_CLIENT_APPROVAL: z
    .enum(["0", "1"], { message: 'must be "0" or "1"' })
    .default("0")
    .transform((v) => v === "1"),
  /** The OpenAI key (also sent to OPENAI_BASE_URL when set). */
  OPENAI_API_KEY: apiKey,
  /** Any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio): the assistant talks Chat Completions to it. */
  OPENAI_BASE_URL: baseUrl,
  ANTHROPIC_API_KEY: apiKey,
  /** Another address for the Anthropic API (a gateway or proxy). */
  ANTHROPIC_BASE_URL: baseUrl,
  GEMINI_API_KEY: apiKey,
  /** Another address for the Gemini API (a gateway or proxy). */
  GEMINI_BASE_URL: baseUrl,
  /** The assistant's model, `provider:model` (e.g. openai:gpt-5-mini); unset: a default for the first provider with a key. */
  ASSISTANT_MODEL: z
    .string()
    .transform((value, ctx) => {
      try {
        parseModelRef(value);
        return value.trim();
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    })
    .optional(),
  /** The assistant's instructions (a system prompt); unset: a short built-in one. */
  ASSISTANT_SYSTEM_PROMPT: z.string().max(20_000, "must be at most 20000 characters").optional(),
  /** Model turns that call tools before the assistant stops (a model that keeps calling tools). */
  ASSISTANT_MAX_STEPS: positiveInt(100).default(10),
  /**
   * Serve the benchmarks' baseline routes under /api/bench/ (an empty route, the bare MCP and A2A
   * SDK servers) so `npm run bench` can time them in the same build ("1"); otherwise they are 404.
   */
  CONSOLE_BENCH_ROUTES: z
    .enum(["0", "1"], { message: 'must be "0" or "1"' })
    .default("0")
    .transform((v) => v === "1"),
  /** Seed the demo tools on start ("0" to skip). */
  SEED_DEMO: z
    .enum(["0", "1"], { message: 'must be "0" or "1"' })
    .default("1")
    .transform((v) => v === "1"),
});

export type Config = z.output<typeof EnvSchema>;

/** Variables whose value never appears in a ConfigError: a bad key must not be printed. */
const SECRETS = new Set(["DATABASE_URL", "ADMIN_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"]);

/** Variables also read under another name when unset: PUBLIC_URL as CONSOLE_PUBLIC_URL, with the prefix of the console's other variables. */
const ALIASES: Partial<Record<string, string>> = { PUBLIC_URL: "CONSOLE_PUBLIC_URL" };

/**
 * Parse the console's settings from an environment (process.env by default). A variable set but
 * empty counts as unset (configNotes says so).
 * Throws ConfigError naming the first variable whose value is unusable (by the name it was set under).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const set = (key: string) => (env[key] === "" ? undefined : env[key]);
  /** The name `key`'s value is set under: its own, or its alias when only that is set. */
  const setAs = (key: string) => {
    const alias = ALIASES[key];
    return set(key) === undefined && alias !== undefined && set(alias) !== undefined ? alias : key;
  };
  const known = Object.fromEntries(
    Object.keys(EnvSchema.shape)
      .map((key) => [key, set(setAs(key))])
      .filter(([, value]) => value !== undefined),
  );
  const parsed = EnvSchema.safeParse(known);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const variable = setAs(String(issue.path[0] ?? "environment"));
  const raw = env[variable];
  const got = raw === undefined || SECRETS.has(variable) ? "" : ` (got ${JSON.stringify(raw)})`;
  throw new ConfigError(`${variable} ${issue.message}${got}`, variable);
}

/** What start-up should tell about the environment: variables set but empty, which count as unset. */
export function configNotes(env: Record<string, string | undefined> = process.env): string[] {
  const defaults = loadConfig({});
  return Object.keys(EnvSchema.shape)
    .filter((key) => env[key] === "")
    .map((key) => {
      const value = defaults[key as keyof Config];
      const shown = value === undefined || (typeof value === "object" && !Array.isArray(value)) ? "none" : JSON.stringify(value);
      return `${key} is set but empty: using the default (${shown}).`;
    });
}
