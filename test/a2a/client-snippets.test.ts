// The A2A calls the Sources page hands out (components/sources/a2a-snippets.ts), run as a developer
// would paste them: the curl command in bash and the TypeScript program under tsx, against the
// console's real agent card and A2A endpoint on 127.0.0.1, with a token made with the a2a scope
// and without one (the local operator). So they cannot drift from what works.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a2aSnippets } from "@/components/sources/a2a-snippets";
import { startA2AServer, type A2ATestServer } from "../support/a2a-server";

const run = promisify(execFile);
const CURL = "/usr/bin/curl";
const root = path.resolve(__dirname, "../..");
// Under the repository's node_modules, so that `import "@a2a-js/sdk"` in a written program resolves.
const scratch = fs.mkdtempSync(path.join(root, "node_modules", ".cache-a2a-snippets-"));

let a2a: A2ATestServer;
let token: string;

beforeAll(async () => {
  a2a = await startA2AServer();
  token = (await a2a.services.tokens.create("snippet-peer", ["a2a"])).token;
});
afterAll(async () => {
  await a2a?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The environment of a pasted snippet: A2A_TOKEN only when a case sets it. */
const env = (extra: Record<string, string> = {}) => {
  const clean = { ...process.env };
  delete clean.A2A_TOKEN;
  return { ...clean, ...extra };
};

/** The callers of the calculate calls the console recorded, oldest first (the tool's history, newest first, turned round). */
async function callers(): Promise<string[]> {
  return (await a2a.services.callHistory.recent("calculate")).map((call) => call.principal).reverse();
}

describe.skipIf(!fs.existsSync(CURL))("the curl snippet (needs /usr/bin/curl)", () => {
  it("calls calculate with the token, and without one as the local operator; a wrong token is a 401", async () => {
    const { curl } = a2aSnippets(a2a.base);
    const before = (await callers()).length;
    for (const extra of [{ A2A_TOKEN: token }, {}] as Array<Record<string, string>>) {
      const { stdout } = await run("/bin/bash", ["-c", curl], { env: env(extra), timeout: 30_000 });
      const answer = JSON.parse(stdout) as { result: { task: { status: { state: string }; artifacts: Array<{ parts: unknown[] }> } } };
      expect(answer.result.task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(answer.result.task.artifacts[0]!.parts[0]).toMatchObject({ data: { expression: "6*7", result: 42 } });
    }
    expect((await callers()).slice(before)).toEqual(["token:snippet-peer", "local"]);
    const refused = await run("/bin/bash", ["-c", curl.replace("curl -sS", "curl -sS -o /dev/null -w '%{http_code}'")], {
      env: env({ A2A_TOKEN: "aguic_not-a-real-token" }),
      timeout: 30_000,
    });
    expect(refused.stdout).toBe("401");
  });
});

describe("the @a2a-js/sdk program", () => {
  async function runProgram(source: string, extra: Record<string, string> = {}) {
    const program = path.join(scratch, `call-${Math.random().toString(36).slice(2)}.mts`);
    fs.writeFileSync(program, source);
    return run(process.execPath, ["--import", "tsx", program], { env: env(extra), timeout: 60_000, cwd: root });
  }

  it("reads the card, calls calculate with the token and without one, and prints the completed task's result", async () => {
    const { typescript } = a2aSnippets(a2a.base);
    const before = (await callers()).length;
    for (const extra of [{ A2A_TOKEN: token }, {}] as Array<Record<string, string>>) {
      const { stdout } = await runProgram(typescript, extra);
      expect(stdout.trim()).toBe('TASK_STATE_COMPLETED {"$case":"data","value":{"expression":"6*7","result":42}}');
    }
    expect((await callers()).slice(before)).toEqual(["token:snippet-peer", "local"]);
    const refused = await runProgram(typescript, { A2A_TOKEN: "aguic_not-a-real-token" }).then(
      () => undefined,
      (error: { stderr: string }) => error,
    );
    expect(refused?.stderr).toContain("401");
  }, 120_000);
});

describe("the snippets' text", () => {
  it("quotes the address, so an odd one cannot break out of the command or the program", () => {
    const odd = a2aSnippets("http://h'x");
    expect(odd.curl).toContain(`curl -sS 'http://h'\\''x/api/a2a' \\`);
    expect(odd.typescript).toContain(`.createFromUrl("http://h'x");`);
  });
});
