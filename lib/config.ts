import { z } from "zod";
import { DomainError } from "./errors";

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

const hostList = z.string().transform((value) =>
  value
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean),
);

const EnvSchema = z.object({
  HOST: z.string().trim().min(1, "must not be empty").default("127.0.0.1"),
  PORT: port.default(3000),
  CONSOLE_DB: z.string().trim().min(1, "must not be empty").default("./data/console.db"),
  /** How long an approval waits for a decision before it expires. */
  APPROVAL_TTL_SECONDS: positiveInt(30 * 24 * 3600).default(24 * 3600),
  /** How often pending approvals past their time are marked expired. */
  APPROVAL_SWEEP_SECONDS: positiveInt(3600).default(15),
  /** Largest AG-UI request body accepted. */
  AGUI_MAX_BODY_BYTES: positiveInt(64 * 1024 * 1024).default(1024 * 1024),
  /** Host names served besides the local ones (comma separated; "*" serves any). */
  ALLOWED_HOSTS: hostList.default([]),
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
  /** Seed the demo tools on start ("0" to skip). */
  SEED_DEMO: z
    .enum(["0", "1"], { message: 'must be "0" or "1"' })
    .default("1")
    .transform((v) => v === "1"),
});

export type Config = z.output<typeof EnvSchema>;

/**
 * Parse the console's settings from an environment (process.env by default).
 * Throws ConfigError naming the first variable whose value is unusable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.shape)
      .map((key) => [key, env[key] === "" ? undefined : env[key]])
      .filter(([, value]) => value !== undefined),
  );
  const parsed = EnvSchema.safeParse(known);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const variable = String(issue.path[0] ?? "environment");
  const raw = env[variable];
  throw new ConfigError(`${variable} ${issue.message}${raw === undefined ? "" : ` (got ${JSON.stringify(raw)})`}`, variable);
}
