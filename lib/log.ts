/** Structured log lines on stderr: one JSON object per line, details never sent to clients. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing lines at `level` and above. */
export function createLogger(
  level: LogLevel = "info",
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const at =
    (lineLevel: Exclude<LogLevel, "silent">) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (ORDER[lineLevel] < ORDER[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lineLevel, message, ...(fields && serialisable(fields)) }));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger("silent");

function serialisable(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
}
