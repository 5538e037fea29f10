import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedSnippets, SAMPLE_MESSAGE, TOKEN_VARIABLE } from "@/components/embed/snippets";
import { consoleApi } from "@/lib/api";
import type { CreatedToken } from "@/lib/api/contracts";
import { parseFrames } from "../support/agui-client";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";

// The snippets the Embed page hands out, run as a developer would paste them, against the console's
// real AG-UI endpoint on 127.0.0.1 with a token made through /api/tokens: so they cannot drift from
// what works.
const run = promisify(execFile);
const CURL = "/usr/bin/curl";
const root = path.resolve(__dirname, "../..");

let server: AguiTestServer;
let created: CreatedToken;
// Under the repository's node_modules, so that `import "@ag-ui/client"` in a written program resolves.
const scratch = fs.mkdtempSync(path.join(root, "node_modules", ".cache-embed-snippets-"));

beforeAll(async () => {
  server = await startAguiServer();
  const { tokens } = consoleApi(server.services);
  const response = await tokens.create(
    new Request("http://127.0.0.1/api/tokens", {
      method: "POST",
      headers: { host: "127.0.0.1", "content-type": "application/json" },
      body: JSON.stringify({ name: "embed-test", scopes: ["agui"] }),
    }),
  );
  expect(response.status).toBe(201);
  created = (await response.json()) as CreatedToken;
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const demoUrl = () => `${server.url}/api/agui/demo`;
/** The environment of a pasted snippet: no AGUI_TOKEN unless a case sets one. */
const env = (extra: Record<string, string> = {}) => {
  const clean = { ...process.env };
  delete clean[TOKEN_VARIABLE];
  return { ...clean, ...extra };
};

describe.skipIf(!fs.existsSync(CURL))("the curl snippet (needs /usr/bin/curl)", () => {
  it("with the page's new token, streams a whole run: RUN_STARTED ... text ... RUN_FINISHED", async () => {
    const { curl } = embedSnippets({ url: demoUrl(), agent: "demo", token: created.token });
    const { stdout } = await run("/bin/bash", ["-c", curl], { env: env(), timeout: 30_000 });
    const events = parseFrames(stdout);
    expect(events[0]).toMatchObject({ type: "RUN_STARTED", threadId: expect.stringMatching(/^curl-thread-/) });
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(events.some((e) => e.type === "TEXT_MESSAGE_CONTENT")).toBe(true);
    expect(events.some((e) => e.type === "RUN_ERROR")).toBe(false);
  });

  it("with the placeholder, reads $AGUI_TOKEN; twice in a row works (fresh run ids); a wrong token is a 401", async () => {
    const { curl } = embedSnippets({ url: demoUrl(), agent: "demo" });
    expect(curl).toContain(`$${TOKEN_VARIABLE}`);
    for (let i = 0; i < 2; i++) {
      const { stdout } = await run("/bin/bash", ["-c", curl], { env: env({ [TOKEN_VARIABLE]: created.token }), timeout: 30_000 });
      expect(parseFrames(stdout).map((e) => e.type)).toEqual(expect.arrayContaining(["RUN_STARTED", "RUN_FINISHED"]));
    }
    // The header is really sent: the console refuses a token it does not know, even on loopback.
    const { stdout } = await run("/bin/bash", ["-c", curl.replace("curl -sS -N", "curl -sS -N -w '\\n%{http_code}'")], {
      env: env({ [TOKEN_VARIABLE]: "aguic_not-a-real-token" }),
      timeout: 30_000,
    });
    expect(stdout.trim().split("\n").at(-1)).toBe("401");
  });
});

describe("the @ag-ui/client HttpAgent program", () => {
  async function runProgram(file: string, source: string, extraEnv: Record<string, string> = {}) {
    const program = path.join(scratch, file);
    fs.writeFileSync(program, source);
    return run(process.execPath, [program], { env: env(extraEnv), timeout: 30_000 });
  }

  it("with the page's new token: asks for a refund, prints the tool call, approves the interrupt and prints the answer", async () => {
    const { node } = embedSnippets({ url: demoUrl(), agent: "demo", token: created.token });
    const { stdout } = await runProgram("with-token.mjs", node);
    expect(stdout).toContain(`[tool call] issue_refund {"orderId":"1234","amount":20,"currency":"EUR"}`);
    expect(stdout).toMatch(/\[approval\] Issue refund wants to run.*: approving/);
    expect(stdout).toContain('[tool result] {"ok":true,"value":{"refundId":"RF-');
    expect(stdout).toMatch(/answer: Refund RF-[0-9A-F]+ issued: 20 EUR for order 1234\./);
    // The approval was the token's own, answered through the resume, and the refund ran once.
    const approvals = (await server.services.approvals.list({ tool: "issue_refund" })).items;
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ status: "consumed", principal: "token:embed-test", decidedBy: "token:embed-test" });
    expect(SAMPLE_MESSAGE).toBe("refund order 1234 for 20 EUR");
  });

  it("with the placeholder, reads AGUI_TOKEN; with a wrong one, says in one line that the console refused it (HTTP 401)", async () => {
    const { node } = embedSnippets({ url: demoUrl(), agent: "demo" });
    expect(node).not.toContain("aguic_");
    const { stdout } = await runProgram("placeholder.mjs", node, { [TOKEN_VARIABLE]: created.token });
    expect(stdout).toMatch(/answer: Refund RF-[0-9A-F]+ issued: 20 EUR for order 1234\./);

    const refused = await runProgram("placeholder.mjs", node, { [TOKEN_VARIABLE]: "aguic_not-a-real-token" }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr.trim().split("\n").at(-1)).toMatch(/^HTTP 401: /);
  });
});

describe("the snippets' text", () => {
  it("quotes what it is given, so an odd URL or agent name cannot break out of the code", () => {
    const odd = embedSnippets({ url: "http://h/api/agui/it's", agent: 'a"b', token: "aguic_x'y" });
    expect(odd.curl).toContain(`'http://h/api/agui/it'\\''s'`);
    expect(odd.curl).toContain(`'authorization: Bearer aguic_x'\\''y'`);
    expect(odd.node).toContain(`const url = "http://h/api/agui/it's";`);
    expect(odd.react).toContain(`const AGENT = "a\\"b";`);
  });

  it("the React component names the CopilotKit version it targets and its known limits", () => {
    const { react } = embedSnippets({ url: "https://console.example.com/api/agui/demo", agent: "demo" });
    expect(react).toContain("@copilotkit/react-core 1.74");
    expect(react).toContain("0.0.59");
    expect(react).toContain("useInterrupt");
    expect(react).toContain(`process.env.NEXT_PUBLIC_${TOKEN_VARIABLE}`);
  });
});
