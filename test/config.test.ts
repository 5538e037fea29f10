import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, configNotes, loadConfig } from "@/lib/config";
import { DatabaseOpenError } from "@/lib/db";
import { createServices } from "@/lib/services";
import { tempDir } from "./support/services";

const root = path.resolve(__dirname, "..");

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("fills every default from an empty environment", () => {
    // toMatchObject: other variables may join the schema; these defaults must hold.
    expect(loadConfig({})).toMatchObject({
      HOST: "127.0.0.1",
      PORT: 3000,
      CONSOLE_DB: "./data/console.db",
      APPROVAL_TTL_SECONDS: 86_400,
      AGUI_MAX_BODY_BYTES: 1024 * 1024,
      ALLOWED_HOSTS: [],
      LOG_LEVEL: "info",
      SEED_DEMO: true,
    });
  });

  it("treats an empty variable as unset, and says so", () => {
    expect(loadConfig({ PORT: "", LOG_LEVEL: "" })).toMatchObject({ PORT: 3000, LOG_LEVEL: "info" });
    expect(configNotes({ PORT: "", LOG_LEVEL: "", HOST: "127.0.0.1" })).toEqual([
      "PORT is set but empty: using the default (3000).",
      'LOG_LEVEL is set but empty: using the default ("info").',
    ]);
  });

  it("reads the values it is given", () => {
    const config = loadConfig({
      HOST: "0.0.0.0",
      PORT: "8080",
      CONSOLE_DB: "/tmp/x.db",
      APPROVAL_TTL_SECONDS: "60",
      ALLOWED_HOSTS: " Console.Example.com , ,other.test",
      LOG_LEVEL: "debug",
      SEED_DEMO: "0",
    });
    expect(config).toMatchObject({
      HOST: "0.0.0.0",
      PORT: 8080,
      CONSOLE_DB: "/tmp/x.db",
      APPROVAL_TTL_SECONDS: 60,
      ALLOWED_HOSTS: ["console.example.com", "other.test"],
      LOG_LEVEL: "debug",
      SEED_DEMO: false,
    });
  });

  it("ignores variables it does not know", () => {
    expect(loadConfig({ PATH: "/usr/bin", NODE_ENV: "production" }).PORT).toBe(3000);
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "0"],
    ["PORT", "80.5"],
    ["APPROVAL_TTL_SECONDS", "0"],
    ["APPROVAL_TTL_SECONDS", "-5"],
    ["APPROVAL_TTL_SECONDS", "soon"],
    ["AGUI_MAX_BODY_BYTES", "lots"],
    ["LOG_LEVEL", "loud"],
    ["SEED_DEMO", "yes"],
    ["HOST", "not a host!"],
    ["HOST", "http://127.0.0.1"],
    ["ALLOWED_HOSTS", ",,,"],
    ["ALLOWED_HOSTS", "console.example, http://x"],
    ["CONSOLE_DB", "  "],
    ["DATABASE_URL", "mysql://db/console"],
    ["DATABASE_URL", "./data/console.db"],
  ])("%s=%j stops with a ConfigError naming the variable", (variable, value) => {
    const error = configError({ [variable]: value });
    expect(error.name).toBe("ConfigError");
    expect(error.kind).toBe("config_error");
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable} `)).toBe(true);
  });

  it("reads DATABASE_URL as PostgreSQL, and never repeats it in an error (it holds a password)", () => {
    expect(loadConfig({}).DATABASE_URL).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: "postgres://console:pw@db:5432/console" }).DATABASE_URL).toBe(
      "postgres://console:pw@db:5432/console",
    );
    expect(loadConfig({ DATABASE_URL: "postgresql://db/console" }).DATABASE_URL).toBe("postgresql://db/console");
    expect(configError({ DATABASE_URL: "mysql://user:secret@db/x" }).message).toBe(
      "DATABASE_URL must be a postgres:// or postgresql:// URL",
    );
  });

  it("reads PUBLIC_URL also as CONSOLE_PUBLIC_URL; PUBLIC_URL wins when both are set, and an error names the one that was set", () => {
    expect(loadConfig({ CONSOLE_PUBLIC_URL: "https://console.example" }).PUBLIC_URL).toBe("https://console.example");
    expect(loadConfig({ PUBLIC_URL: "https://a.example", CONSOLE_PUBLIC_URL: "https://b.example" }).PUBLIC_URL).toBe("https://a.example");
    expect(configError({ CONSOLE_PUBLIC_URL: "ftp://x" }).message).toMatch(/^CONSOLE_PUBLIC_URL must be an http or https URL/);
    expect(configError({ PUBLIC_URL: "ftp://x" }).message).toMatch(/^PUBLIC_URL must be/);
  });

  it("names the bad value in the message", () => {
    expect(configError({ PORT: "70000" }).message).toBe('PORT must be at most 65535 (got "70000")');
    expect(configError({ LOG_LEVEL: "loud" }).message).toContain('"loud"');
  });
});

describe("an unusable CONSOLE_DB", () => {
  function openError(file: string): DatabaseOpenError {
    try {
      createServices(loadConfig({ CONSOLE_DB: file, LOG_LEVEL: "silent" })).close();
    } catch (error) {
      expect(error).toBeInstanceOf(DatabaseOpenError);
      return error as DatabaseOpenError;
    }
    throw new Error(`createServices opened ${file}`);
  }

  it("under a regular file stops with DatabaseOpenError naming CONSOLE_DB", () => {
    const file = path.join(tempDir(), "plain-file");
    fs.writeFileSync(file, "not a directory");
    const error = openError(path.join(file, "console.db"));
    expect(error.name).toBe("DatabaseOpenError");
    expect(error.variable).toBe("CONSOLE_DB");
    expect(error.message).toMatch(/^CONSOLE_DB: /);
    expect(error.message).toContain(path.join(file, "console.db"));
  });

  it.each(["/proc/agui-console-test.db", "/proc/agui-console-test/console.db"])(
    "at %s stops with DatabaseOpenError naming CONSOLE_DB",
    (file) => {
      expect(openError(file).message).toMatch(/^CONSOLE_DB: /);
    },
  );

  it("that is not a SQLite database stops with DatabaseOpenError naming CONSOLE_DB", () => {
    const file = path.join(tempDir(), "garbage.db");
    fs.writeFileSync(file, "this is not a database ".repeat(200));
    expect(openError(file).message).toMatch(/^CONSOLE_DB: /);
  });
});

describe("scripts/prepare.ts", () => {
  function prepare(env: Record<string, string>) {
    const { PORT: _p, CONSOLE_DB: _d, LOG_LEVEL: _l, ...inherited } = process.env;
    return spawnSync(process.execPath, ["--import", "tsx", "scripts/prepare.ts"], {
      cwd: root,
      env: { ...inherited, LOG_LEVEL: "silent", ...env },
      encoding: "utf8",
      timeout: 30_000,
    });
  }

  it("exits 1 with one line naming PORT when PORT is not a number", () => {
    const child = prepare({ PORT: "abc", CONSOLE_DB: path.join(tempDir(), "console.db") });
    expect(child.status).toBe(1);
    const lines = child.stderr.split("\n").filter((line) => line.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot start: PORT /);
    expect(lines[0]).toContain('"abc"');
  });

  it("exits 1 with one line naming CONSOLE_DB when the database cannot be opened", () => {
    const file = path.join(tempDir(), "plain-file");
    fs.writeFileSync(file, "x");
    const child = prepare({ CONSOLE_DB: path.join(file, "console.db") });
    expect(child.status).toBe(1);
    const lines = child.stderr.split("\n").filter((line) => line.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot start: CONSOLE_DB: /);
  });

  it("prepares a fresh database and exits 0", () => {
    const file = path.join(tempDir(), "fresh", "console.db");
    const child = prepare({ CONSOLE_DB: file });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout).toContain("(5 tools)");
    expect(fs.existsSync(file)).toBe(true);
  });
});
