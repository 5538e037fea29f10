import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(__dirname, "../..");

/** The "everything" reference server's entry point, run with this Node. */
export const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

/** The import fixture (test/support/mcp-fixture-server.mjs), run with this Node. */
export const FIXTURE = path.join(__dirname, "mcp-fixture-server.mjs");

/** A stdio target for `script`, as an import takes it. */
export function stdioTarget(script: string, args: string[] = [], env?: Record<string, string>) {
  return { transport: "stdio" as const, command: process.execPath, args: [script, ...args], ...(env && { env }) };
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The everything server over Streamable HTTP on 127.0.0.1 (its own code binds every interface; a preload keeps it on loopback). */
export class EverythingHttp {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<EverythingHttp> {
    const server = new EverythingHttp(await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  /** Start the process (again, on the same port) and wait until it accepts connections. */
  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      ["--import", pathToFileURL(path.join(__dirname, "force-loopback.mjs")).href, EVERYTHING, "streamableHttp"],
      {
        env: { PATH: process.env.PATH ?? "", PORT: String(this.port) } as unknown as NodeJS.ProcessEnv,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    this.child = child;
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the everything server exited with ${child.exitCode}`);
      if (await accepts(this.port)) return;
      if (Date.now() > deadline) throw new Error("the everything server did not start within 15 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Stop the process and wait for it to go. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await gone;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Whether a process with this id is running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll `check` every 50 ms until it returns a value other than undefined or false, up to `timeoutMs`. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
