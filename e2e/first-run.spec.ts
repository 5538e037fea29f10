import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { ToolsPage } from "./pages/tools-page";

// What a new user meets first: a chat to type in at once, a tool list with no wait, pages with no errors.

test("/chat opens a new thread with the default agent, the composer focused, one agent picker", async ({ page }) => {
  await page.goto("/chat");
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}\?agent=demo$/);
  const chat = new ChatPage(page);
  await expect(page.getByRole("heading", { name: "Chat with demo" })).toBeVisible();
  await expect(chat.composer).toBeFocused();
  await expect(page.getByRole("button", { name: "New chat" })).toHaveCount(1);
  await expect(page.getByLabel("New chat with", { exact: true })).toHaveCount(1);
  await page.keyboard.type("calculate 6 * 7");
  await page.keyboard.press("Enter");
  await expect(chat.lastAnswer()).toContainText("= 42");
});

test("the tools page shows its first page without asking the API again", async ({ page }) => {
  const asked: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/tools") asked.push(request.url());
  });
  const tools = new ToolsPage(page);
  await tools.open();
  await expect(tools.toolLink("get_weather")).toBeVisible();
  await expect(page.getByText("Loading tools")).toHaveCount(0);
  expect(asked).toEqual([]);
});

test("the approvals page hydrates with no error, with a pending approval's times on it", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  const chat = new ChatPage(page);
  await chat.openNew();
  await chat.send("refund order 4242 for 5 EUR");
  await expect(chat.interruptCard("issue_refund")).toBeVisible();
  await page.goto("/approvals");
  const row = page.locator("[data-approval-id]").first();
  await expect(row).toContainText(/s ago/);
  await expect(row).toContainText(/left/);
  expect(errors).toEqual([]);
  // Leave no pending approval behind for the specs that count them.
  await row.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.locator("[data-approval-id]")).toHaveCount(0);
});

test("the interrupt card's buttons are in view at 1280×900", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const chat = new ChatPage(page);
  await chat.openNew();
  await chat.send("weather in Paris and Tokyo");
  await expect(chat.lastAnswer()).toContainText("Tokyo");
  await chat.send("refund order 555 for 12 EUR");
  await expect(chat.interruptCard("issue_refund").getByRole("button", { name: "Approve", exact: true })).toBeInViewport();
  await chat.approve("issue_refund");
  await expect(chat.lastAnswer()).toContainText("issued: 12 EUR for order 555");
});

test("the favicon is served", async ({ request }) => {
  const response = await request.get("/favicon.ico");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("image/");
});
