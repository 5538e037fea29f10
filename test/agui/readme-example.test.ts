import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";

// The README's client script, run as a user would, against the real endpoint on 127.0.0.1.
let server: AguiTestServer;
beforeAll(async () => {
  server = await startAguiServer();
});
afterAll(() => server.close());

it("examples/agui-approve.mjs chats, receives the interrupt, approves it and gets the result", async () => {
  const script = path.resolve(__dirname, "../../examples/agui-approve.mjs");
  const { stdout } = await promisify(execFile)(process.execPath, [script], { env: { ...process.env, AGUI_URL: `${server.url}/api/agui/demo` }, timeout: 30_000 });
  expect(stdout).toMatch(/interrupt apr_\S+: Issue refund wants to run/);
  expect(stdout).toContain('tool result: {"ok":true,"value":{"refundId":"RF-');
  expect(stdout).toMatch(/answer: Refund RF-[0-9A-F]+ issued: 20 EUR for order 1234\./);
  const approvals = server.services.approvals.list({ tool: "issue_refund" }).items;
  expect(approvals[0]).toMatchObject({ status: "consumed", decidedBy: "local" });
});
