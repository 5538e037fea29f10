import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpServer, type McpTestServer } from "../support/mcp-server";
import { node22 } from "../support/node22";
import { tempDir } from "../support/services";
import { registerConformanceFixtures } from "./conformance-fixtures";

// The MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, server mode) against the
// console's own MCP handler on a real socket, with the suite's fixture tools in the registry. The
// CLI needs Node 22, fetched once from the npm registry (test/support/node22.ts). conformance-baseline.yml lists
// the scenarios expected to fail, each with its reason; the CLI exits 1 on any other failure and on
// a listed scenario that passes.

const root = path.resolve(__dirname, "../..");
const cli = path.join(root, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpServer();
  await registerConformanceFixtures(server.services.registry);
});
afterAll(() => server?.close());

function runSuite(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22(), [cli, ...args], { cwd: root, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}

describe("MCP conformance (server mode)", () => {
  it("fails only the scenarios the baseline names, for the reasons it gives", { timeout: 120_000 }, async () => {
    const { code, output } = await runSuite([
      "server",
      "--url",
      server.url,
      "--expected-failures",
      path.join(__dirname, "conformance-baseline.yml"),
      "-o",
      tempDir("mcp-conformance-"),
    ]);
    expect(code, output).toBe(0);
    // The scenarios the console must pass, named so a change in the suite cannot drop them silently.
    for (const scenario of [
      "server-initialize",
      "ping",
      "tools-list",
      "tools-call-simple-text",
      "tools-call-error",
      "tools-call-image",
      "tools-call-audio",
      "tools-call-embedded-resource",
      "tools-call-mixed-content",
      "dns-rebinding-protection",
    ])
      expect(output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
  });
});
