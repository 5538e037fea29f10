import { expect, test } from "@playwright/test";
import { startFixtureAgent, type FixtureAgent } from "../test/support/a2a-fixture-agent";
import { AddA2ADialog } from "./pages/add-a2a-dialog";
import { ChatPage } from "./pages/chat-page";
import { SourcesPage } from "./pages/sources-page";
import { ToolsPage } from "./pages/tools-page";

// A small A2A agent built with the SDK listens on 127.0.0.1, which the e2e console may reach
// (OUTBOUND_ALLOW in playwright.config.ts).
let agent: FixtureAgent;
test.beforeAll(async () => {
  agent = await startFixtureAgent();
});
test.afterAll(async () => {
  await agent.close();
});

test("adds an A2A agent by URL, shows its card, calls a skill as a tool, refreshes and removes it", async ({ page, request }) => {
  // A name and prefix of its own, so the spec can run again against the same database.
  const stamp = Date.now().toString(36);
  const name = `Fixture ${stamp}`;
  const prefix = `fx${stamp}_`;

  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await AddA2ADialog.open(page);
  await dialog.fill({ url: agent.base, bearer: "e2e-secret", name, prefix });
  const tested = await dialog.test();
  await expect(tested).toContainText("Found Fixture agent 2.1.0 (A2A 1.0): 2 skills.");
  await expect(tested.getByRole("row").filter({ hasText: `${prefix}echo` })).toContainText("a message");
  await dialog.import();
  await expect(dialog.status()).toContainText(`Imported 2 tools from ${name}.`);
  await dialog.close();

  const row = sources.row(name);
  await expect(row).toContainText("2 tools");
  await expect(row).toContainText("auth: bearer (secret stored)");
  await expect(row).not.toContainText("e2e-secret");
  await row.getByText(/^Card: Fixture agent 2\.1\.0/).click();
  await expect(row.getByRole("list", { name: "Skills of Fixture agent" })).toContainText("Ask a human (ask.human)");

  // The tool works like any other: here through the REST try-it endpoint.
  const call = await request.post(`/api/tools/${prefix}echo/calls`, { data: { args: { message: "from e2e" } } });
  expect(call.status()).toBe(200);
  expect((await call.json()).result).toEqual({ ok: true, value: "echo: from e2e" });
  expect(agent.seen.filter((s) => s.path === "/rpc").at(-1)?.authorization).toBe("Bearer e2e-secret");

  // Its tools are in the tool list, found by their source, and in agents' chats.
  const tools = new ToolsPage(page);
  await tools.open();
  await tools.filter("Source", name);
  await expect(tools.toolLink(`${prefix}echo`)).toBeVisible();
  const chat = new ChatPage(page);
  await chat.openNew("demo");
  await chat.send(`/${prefix}echo {"message":"from the chat"}`);
  await expect(chat.toolCall(`${prefix}echo`)).toHaveAttribute("data-status", "succeeded");
  await expect(chat.lastAnswer()).toContainText("echo: from the chat");

  await sources.open();
  await sources.refresh(name);
  await expect(sources.notice()).toHaveText(`Refreshed ${name}: 2 tools.`);
  await sources.remove(name);
  await expect(sources.notice()).toHaveText(`Removed ${name} and its 2 tools.`);
  await expect(sources.row(name)).toHaveCount(0);
});

test("says what is wrong with an agent URL before and after testing it", async ({ page }) => {
  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await AddA2ADialog.open(page);
  await dialog.fill({ url: "ftp://example.test/agent" });
  await expect(dialog.error()).toHaveText("The URL must start with http:// or https://.");
  await expect(dialog.testButton()).toBeDisabled();
  // Nothing listens on port 1: the test reports the failure and nothing is imported.
  await dialog.fill({ url: "http://127.0.0.1:1" });
  await dialog.testButton().click();
  await expect(dialog.error()).toContainText("The agent test failed");
  await expect(dialog.error()).toContainText("cannot be fetched");
});
