import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, startEmbeddedPostgres, type TestPostgresServer } from "../../test/support/postgres-server";

const root = path.resolve(__dirname, "..", "..");

/** A built console (scripts/server.mjs, as `npm start` runs it) in its own process on 127.0.0.1. */
export interface ConsoleInstance {
  name: string;
  url: string;
  pid: number;
  /** What it printed, for a failure's message. */
  output(): string;
  /** Stop it with SIGTERM and wait for it to exit. */
  stop(): Promise<void>;
  /** SIGKILL it, as a crash would, and wait until it is gone. */
  kill(): Promise<void>;
}

/** Start a console instance with `env` over the defaults below; resolves once /api/health answers 200. */
export async function startInstance(name: string, env: Record<string, string>): Promise<ConsoleInstance> {
  const port = await freePort();
  const state = fs.mkdtempSync(path.join(os.tmpdir(), `agui-console-${name}-`));
  const child = spawn(process.execPath, [path.join(root, "scripts", "server.mjs"), "127.0.0.1", String(port)], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      HOST: "127.0.0.1",
      PORT: String(port),
      CONSOLE_DB: path.join(state, "unused.db"),
      CONSOLE_STATE_DIR: state,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`console ${name} exited (${child.exitCode}) before serving:\n${output}`);
    const status = await fetch(`${url}/api/health`)
      .then((response) => response.status)
      .catch(() => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`console ${name} did not answer /api/health with 200 in 90 s (last ${status}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    fs.rmSync(state, { recursive: true, force: true });
  };
  return { name, url, pid: child.pid!, output: () => output, stop: () => end("SIGTERM"), kill: () => end("SIGKILL") };
}

/** One port in front of several consoles, each request to the next one in turn; streams pass through unbuffered. */
export async function startBalancer(targets: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  const server = http.createServer((request, response) => {
    const target = new URL(targets[next++ % targets.length]!);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fresh database for one spec: on the server DATABASE_URL names when it is set, else on a
 * throw-away embedded PostgreSQL started here. `drop` removes it (and stops that server).
 */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  let server: TestPostgresServer | undefined;
  const serverUrl = process.env.DATABASE_URL || (server = await startEmbeddedPostgres()).url;
  const name = `console_e2e_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin(`drop database if exists ${name} with (force)`).catch(() => {});
      await server?.stop();
    },
  };
}
