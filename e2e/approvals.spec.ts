import { expect, test } from "@playwright/test";
import { ApprovalsPage } from "./pages/approvals-page";
import { ChatPage } from "./pages/chat-page";

test("an operator approves in the inbox and the waiting chat resumes by itself", async ({ browser }) => {
  const userContext = await browser.newContext();
  const operatorContext = await browser.newContext();
  try {
    const chat = new ChatPage(await userContext.newPage());
    await chat.openNew();
    const order = `${Date.now()}`.slice(-6);
    await chat.send(`refund order ${order} for 35 EUR`);
    await expect(chat.interruptCard("issue_refund")).toBeVisible();

    const inbox = new ApprovalsPage(await operatorContext.newPage());
    await inbox.open();
    const row = inbox.row(order);
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("asked by local via agui");
    await row.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(inbox.row(order)).toHaveCount(0);

    // The user's tab shows who approved, resumes on its own and shows the result: no reload.
    await expect(chat.toolCall("issue_refund")).toHaveAttribute("data-status", "succeeded");
    await expect(chat.lastAnswer()).toContainText(`issued: 35 EUR for order ${order}`);
  } finally {
    await userContext.close();
    await operatorContext.close();
  }
});

test("the inbox updates live, denies with a reason, and the history answers who decided what", async ({ browser }) => {
  const operatorContext = await browser.newContext();
  const userContext = await browser.newContext();
  try {
    const inbox = new ApprovalsPage(await operatorContext.newPage());
    await inbox.open();
    const chat = new ChatPage(await userContext.newPage());
    await chat.openNew();
    const order = `D${Date.now()}`.slice(-7);
    await chat.send(`refund order ${order} for 999 EUR`);

    // No reload: the new approval appears in the open inbox.
    const row = inbox.row(order);
    await expect(row).toHaveCount(1);
    await row.getByRole("button", { name: "Deny…" }).click();
    await row.getByLabel("Reason (optional, shown to the agent)").fill("over the limit");
    await row.getByRole("button", { name: "Confirm deny" }).click();
    await expect(chat.lastAnswer()).toContainText("denied (reason: over the limit)");

    await inbox.tab("History");
    await inbox.search(order);
    const decided = inbox.page.getByRole("list", { name: "Decided approvals" }).getByRole("listitem").filter({ hasText: order });
    await expect(decided).toContainText("denied");
    await expect(decided).toContainText("decided by local");
    await expect(decided).toContainText("Reason: over the limit");
    await decided.getByRole("button", { name: "Show audit trail" }).click();
    await expect(decided.getByRole("list", { name: /Audit trail/ })).toContainText("decided by local");
  } finally {
    await operatorContext.close();
    await userContext.close();
  }
});

test("approve for this thread: later calls of the tool in the same thread run without asking", async ({ page, request }) => {
  const set = (approval: string) => request.patch("/api/tools/create_ticket", { data: { approval } });
  expect((await set("once_per_thread")).status()).toBe(200);
  try {
    const chat = new ChatPage(page);
    await chat.openNew();
    await chat.send("open a ticket about the first printer");
    await chat.interruptCard("create_ticket").getByRole("button", { name: "Approve for this thread" }).click();
    await expect(chat.lastAnswer()).toContainText("I opened ticket TCK-");

    await chat.send("open a ticket about the second printer");
    await expect(chat.lastAnswer()).toContainText("“The second printer”");
    await expect(chat.interruptCard("create_ticket")).toHaveCount(0);
    await expect(chat.toolCall("create_ticket")).toHaveCount(2);
  } finally {
    await set("default");
  }
});
