import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { postRun, userMessage } from "../support/agui-client";
import { tempDir } from "../support/services";

const run = promisify(execFile);
const db = path.join(tempDir(), "tokens.db");
let server: AguiTestServer;

/** `npm run token -- ...` as a child process on the test database. */
async function tokenScript(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "scripts/token.ts", ...args], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env: { ...process.env, CONSOLE_DB: db, LOG_LEVEL: "silent" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function body() {
  return {
    threadId: `t-${crypto.randomUUID()}`,
    runId: `r-${crypto.randomUUID()}`,
    protocolVersion: "1.0",
    messages: [userMessage("hi")],
    tools: [],
    context: [],
  };
}

beforeAll(async () => {
  // The console is exposed (not loopback): only a bearer token gets in.
  server = await startAguiServer({ CONSOLE_DB: db, HOST: "0.0.0.0" });
});
afterAll(() => server?.close());

// Each call starts node with tsx (about 1.5 s).
describe("scripts/token.ts", { timeout: 60_000 }, () => {
  it("create prints the token once, list never prints it, revoke makes it useless", async () => {
    const created = await tokenScript("create", "deploy-bot", "--scopes", "agui,approvals");
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const token = lines[0]!;
    expect(token).toMatch(/^aguic_[A-Za-z0-9_-]{40,}$/);
    expect(created.stderr).toContain('Created token "deploy-bot" (agui, approvals)');
    expect(created.stderr).not.toContain(token);

    const ok = await postRun(server.url, body(), { token });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"RUN_FINISHED"');

    const listed = await tokenScript("list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/deploy-bot\s+agui,approvals\s+active\s+last used \d{4}-/);
    expect(listed.stdout + listed.stderr).not.toContain(token);
    expect(listed.stdout + listed.stderr).not.toContain(token.slice(6, 20));

    const again = await tokenScript("create", "deploy-bot");
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain("exists already");

    const revoked = await tokenScript("revoke", "deploy-bot");
    expect(revoked).toMatchObject({ code: 0, stdout: "Revoked 1 token.\n" });
    expect((await postRun(server.url, body(), { token })).status).toBe(401);
    expect((await tokenScript("list")).stdout).toMatch(/deploy-bot\s+agui,approvals\s+revoked/);
    expect((await tokenScript("revoke", "deploy-bot")).code).toBe(1);
  });

  it("refuses an unknown scope without creating anything", async () => {
    const refused = await tokenScript("create", "odd", "--scopes", "agui,root");
    expect(refused).toMatchObject({ code: 1, stdout: "" });
    expect(refused.stderr).toContain("Unknown scope root");
    expect((await tokenScript("list")).stdout).not.toContain("odd");
  });
});
