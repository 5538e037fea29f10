import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";

test.describe("chat with the demo agent", () => {
  test("asks for the weather and sees the tool call with its arguments and result", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNew();
    await chat.send("weather in Paris");
    const call = chat.toolCall("get_weather");
    await expect(call).toHaveAttribute("data-status", "succeeded");
    await expect(call.getByLabel("Arguments of get_weather")).toContainText('"city": "Paris"');
    await expect(call.getByLabel("Result of get_weather")).toContainText('"temperature"');
    await expect(chat.lastAnswer()).toContainText("In Paris it is");
    await expect(chat.status()).toHaveText("finished");
  });

  test("asks for a refund, approves the card, and sees the result and the final answer", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNew();
    await chat.send("refund order 1234 for 20 EUR");
    const card = chat.interruptCard("issue_refund");
    await expect(card).toBeVisible();
    await expect(card).toContainText('"orderId": "1234"');
    await expect(chat.toolCall("issue_refund")).toHaveAttribute("data-status", "awaiting_approval");
    await chat.approve("issue_refund");
    await expect(chat.toolCall("issue_refund")).toHaveAttribute("data-status", "succeeded");
    await expect(chat.toolCall("issue_refund").getByLabel("Result of issue_refund")).toContainText('"refundId"');
    await expect(chat.lastAnswer()).toContainText("issued: 20 EUR for order 1234");
    await expect(card).toHaveCount(0);
  });

  test("denies with a reason and the agent says so", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNew();
    await chat.send("refund order 77 for 500 EUR");
    await chat.deny("issue_refund", "amount too high");
    await expect(chat.toolCall("issue_refund")).toHaveAttribute("data-status", "denied");
    await expect(chat.lastAnswer()).toContainText("denied (reason: amount too high)");
  });

  test("edits the arguments and the edited call runs", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNew();
    await chat.send("refund order 555 for 90 EUR");
    await expect(chat.interruptCard("issue_refund")).toBeVisible();
    await chat.editAndApprove("issue_refund", { amount: "45" });
    await expect(chat.toolCall("issue_refund")).toHaveAttribute("data-status", "succeeded");
    await expect(chat.toolCall("issue_refund").getByLabel("Result of issue_refund")).toContainText('"amount": 45');
    await expect(chat.lastAnswer()).toContainText("issued: 45 EUR for order 555");
  });

  test("reloads while a card is open and approves after the reload", async ({ page }) => {
    const chat = new ChatPage(page);
    const threadId = await chat.openNew();
    await chat.send("open a ticket about the broken printer");
    await expect(chat.interruptCard("create_ticket")).toBeVisible();
    await page.reload();
    await chat.open(threadId);
    await expect(chat.interruptCard("create_ticket")).toBeVisible();
    await expect(page.locator('[data-role="user"]')).toContainText("open a ticket about the broken printer");
    await chat.approve("create_ticket");
    await expect(chat.toolCall("create_ticket")).toHaveAttribute("data-status", "succeeded");
    await expect(chat.lastAnswer()).toContainText("I opened ticket TCK-");
  });

  test("stops a long run", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNew();
    await chat.send("/stream 5000");
    await expect(page.getByRole("button", { name: "Stop" })).toBeVisible();
    await expect(chat.lastAnswer()).toContainText("agents call tools");
    await page.getByRole("button", { name: "Stop" }).click();
    await expect(chat.status()).toHaveText("stopped");
    await expect(page.getByRole("button", { name: "Stop" })).toHaveCount(0);
    await expect(chat.composer).toBeEnabled();
  });
});

test.describe("new chat", () => {
  test("starts with the agent of the thread on screen, and the console's default elsewhere", async ({ page }) => {
    const chat = new ChatPage(page);
    const threadId = await chat.openNew("plain-chat");
    await chat.send("hello there");
    await expect(chat.status()).toHaveText("finished");
    const picker = page.getByLabel("New chat with", { exact: true });
    await expect(picker).toHaveValue("plain-chat");

    // Opened from the recent threads (no ?agent= in its address), the thread still names its agent.
    await page.goto("/tools");
    await page.goto("/chat");
    await expect(page.getByRole("heading", { name: "Chat with demo" })).toBeVisible();
    await expect(picker).toHaveValue("demo");
    await page
      .getByRole("navigation", { name: "Recent threads" })
      .getByRole("link", { name: /hello there/ })
      .first()
      .click();
    await expect(page).toHaveURL(new RegExp(`/chat/${threadId}$`));
    await expect(picker).toHaveValue("plain-chat");

    // Another pick holds on this page, and the new thread is with the agent picked.
    await picker.selectOption("demo");
    await page.getByRole("button", { name: "New chat" }).click();
    await expect(page.getByRole("heading", { name: "Chat with demo" })).toBeVisible();
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}\?agent=demo$/);
    await expect(picker).toHaveValue("demo");
  });

  test("gets Markdown ready while the page is idle, once, and leaves nothing of it on the page", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNew();
    const warmed = () => page.evaluate(() => performance.getEntriesByName("agui-console:markdown-warmed").length);
    await expect.poll(warmed).toBe(1);
    // Rendered out of sight and gone: only the agent's hint is in the conversation.
    await expect(page.getByRole("region", { name: "Conversation" }).locator("[hidden]")).toHaveCount(0);
    // A CSS locator counts hidden elements too (a role query would not see the hidden heading).
    await expect(page.locator("h1", { hasText: "Title" })).toHaveCount(0);
    await chat.send("hello there");
    await expect(chat.status()).toHaveText("finished");
    expect(await warmed()).toBe(1);
  });

  test("shows the shared state panel for an agent that keeps one, and leaves the room to the conversation otherwise", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNew("demo");
    await expect(page.getByRole("heading", { name: "Shared state" })).toBeVisible();
    await chat.openNew("plain-chat");
    await chat.send("hello");
    await expect(chat.status()).toHaveText("finished");
    await expect(page.getByRole("heading", { name: "Shared state" })).toHaveCount(0);
  });
});
