import { expect, test } from "@playwright/test";
import { startAguiServer, type AguiTestServer } from "../test/support/agui-server";
import { AddAguiDialog } from "./pages/add-agui-dialog";
import { ApprovalsPage } from "./pages/approvals-page";
import { ChatPage } from "./pages/chat-page";
import { SourcesPage } from "./pages/sources-page";

// A second console (its own database, its demo agent, a bearer token required) listens on
// 127.0.0.1, which the e2e console may reach (OUTBOUND_ALLOW in playwright.config.ts). A person
// adds it on /sources as a remote AG-UI agent, chats with it, and approves its refund in the inbox.
let remote: AguiTestServer;
let token: string;
test.beforeAll(async () => {
  remote = await startAguiServer();
  token = (await remote.services.tokens.create("e2e-peer")).token;
});
test.afterAll(async () => {
  await remote.close();
});

test("adds a remote AG-UI agent, chats with it, approves its call in the inbox, then removes it", async ({ page, context }) => {
  // A name of its own, so the spec can run again against the same database.
  const name = `peer-${Date.now().toString(36)}`;
  const agent = `remote:${name}`;

  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await AddAguiDialog.open(page);
  await dialog.fill({ name, url: `${remote.url}/api/agui/demo`, bearer: token });
  const tested = await dialog.test();
  await expect(tested).toContainText('lists the agent "demo"');
  await dialog.add();
  await expect(dialog.status()).toContainText(`Added ${agent}`);
  await dialog.close();
  const row = sources.row(name);
  await expect(row).toContainText(agent);
  await expect(row).toContainText("auth: bearer (secret stored)");
  await expect(row).not.toContainText(token);

  // The chat streams the remote demo agent's tool call and answer.
  const chat = new ChatPage(page);
  await chat.openNew(agent);
  // The conversation's header names the remote endpoint (so does the New chat picker beside it).
  await expect(
    page.getByRole("region", { name: "Conversation" }).getByText(`remote AG-UI agent at ${remote.url}/api/agui/demo`),
  ).toBeVisible();
  await chat.send("weather in Paris");
  await expect(chat.toolCall("get_weather")).toBeVisible();
  await expect(chat.lastAnswer()).toContainText("Paris");
  await expect(chat.status()).toHaveText("finished");

  // Its refund waits for approval: the card shows in the chat, the row in the console's inbox.
  await chat.send("refund order 4321 for 9 EUR");
  await expect(chat.interruptCard("issue_refund")).toBeVisible();
  const inboxPage = await context.newPage();
  const inbox = new ApprovalsPage(inboxPage);
  await inbox.open();
  const pending = inbox.row("4321");
  await expect(pending).toContainText("via agui-remote");
  await expect(pending).toContainText(agent);
  await pending.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(inbox.row("4321")).toHaveCount(0);
  await inboxPage.close();

  // The chat hears the decision, resumes by itself, and the remote issues the refund.
  await expect(chat.lastAnswer()).toContainText(/Refund .* issued/);
  await expect(chat.interruptCard("issue_refund")).toHaveCount(0);

  await sources.open();
  await sources.remove(name);
  await expect(sources.notice()).toHaveText(`Removed ${name} and its agent ${agent}.`);
  await expect(sources.row(name)).toHaveCount(0);
});
