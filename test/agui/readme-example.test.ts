import { execFile } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { agentFunction } from "@/lib/agents";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";

// The README's client script, run as a user would, against the real endpoint on 127.0.0.1.
const script = path.resolve(__dirname, "../../examples/agui-approve.mjs");
let server: AguiTestServer;
beforeAll(async () => {
  server = await startAguiServer();
  server.services.agents.add(
    agentFunction(
      {
        name: "failing",
        description: "fails at once",
        model: "test",
        capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
      },
      async () => {
        throw new Error("no model behind this agent");
      },
    ),
  );
});
afterAll(() => server.close());

it("examples/agui-approve.mjs chats, receives the interrupt, approves it and gets the result", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [script], {
    env: { ...process.env, AGUI_URL: `${server.url}/api/agui/demo` },
    timeout: 30_000,
  });
  expect(stdout).toMatch(/interrupt apr_\S+: Issue refund wants to run.* issue_refund \{ orderId: '1234', amount: 20, currency: 'EUR' \}/);
  expect(stdout).toContain('tool result: {"ok":true,"value":{"refundId":"RF-');
  expect(stdout).toMatch(/answer: Refund RF-[0-9A-F]+ issued: 20 EUR for order 1234\./);
  const approvals = (await server.services.approvals.list({ tool: "issue_refund" })).items;
  expect(approvals[0]).toMatchObject({ status: "consumed", decidedBy: "local" });
});

it("examples/agui-approve.mjs stops with the run's error when the agent fails (runAgent() itself resolves)", async () => {
  const failed = await promisify(execFile)(process.execPath, [script], {
    env: { ...process.env, AGUI_URL: `${server.url}/api/agui/failing` },
    timeout: 30_000,
  }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.stderr).toContain("run failed: The agent failed while answering. The server log has the details. (agent_error)");
});

it("examples/agui-approve.mjs says in one line what failed when the console is not there", async () => {
  // A port nothing listens on: bound then closed on 127.0.0.1.
  const free = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const failed = await promisify(execFile)(process.execPath, [script], {
    env: { ...process.env, AGUI_URL: `http://127.0.0.1:${free}/api/agui/demo` },
    timeout: 30_000,
  }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.stderr.trim()).toBe(
    `Cannot reach the console at http://127.0.0.1:${free}/api/agui/demo (ECONNREFUSED): is it running (npm start)? Set AGUI_URL to its address.`,
  );
});
