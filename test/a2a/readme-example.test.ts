import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startA2AServer, type A2ATestServer } from "../support/a2a-server";

// The README's A2A client script, run as a user would, against a console that wants a token (bound
// off loopback), on 127.0.0.1.
const script = path.resolve(__dirname, "../../examples/a2a-call.mjs");
let a2a: A2ATestServer;
let token: string;
beforeAll(async () => {
  a2a = await startA2AServer({ env: { HOST: "0.0.0.0" } });
  token = (await a2a.services.tokens.create("a2a-example", ["a2a"])).token;
});
afterAll(() => a2a.close());

const run = (args: string[], env: Record<string, string>) =>
  promisify(execFile)(process.execPath, [script, ...args], { env: { ...process.env, A2A_URL: a2a.base, ...env }, timeout: 30_000 });

it("examples/a2a-call.mjs discovers the console with its token and calls a tool", async () => {
  const { stdout } = await run(["calculate", '{"expression":"6*7"}'], { A2A_TOKEN: token });
  expect(stdout).toBe('result: {"expression":"6*7","result":42}\n');
});

it("examples/a2a-call.mjs follows a call that waits for approval until the operator approves it, then prints its result", async () => {
  const child = spawn(process.execPath, [script, "create_ticket", '{"title":"Printer on fire"}'], {
    env: { ...process.env, A2A_URL: a2a.base, A2A_TOKEN: token },
  });
  let stdout = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const waiting = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /waiting for approval (apr_\S+): (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    setTimeout(() => reject(new Error(`no approval line in ${JSON.stringify(stdout)}`)), 20_000);
  });
  expect(stdout).toContain(`/approvals?approval=${waiting}`);
  expect(await a2a.services.approvals.get(waiting)).toMatchObject({ status: "pending", surface: "a2a", principal: "token:a2a-example" });
  expect((await a2a.decide(waiting, { approved: true }, await adminToken())).status).toBe(200);
  expect(await exited).toBe(0);
  expect(stdout).toMatch(/result: \{"ticketId":"TCK-[0-9A-F]+","title":"Printer on fire"/);
  expect(await a2a.services.approvals.get(waiting)).toMatchObject({ status: "consumed" });
});

it("examples/a2a-call.mjs says in one line that the console wants a token", async () => {
  const failed = await run([], {}).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.stderr.trim()).toBe(
    `The console at ${a2a.base} wants a token (HTTP 401): set A2A_TOKEN (npm run token -- create NAME --scopes a2a).`,
  );
});

let admin: string | undefined;
async function adminToken(): Promise<string> {
  admin ??= (await a2a.services.tokens.create("operator", ["approvals"])).token;
  return admin;
}
