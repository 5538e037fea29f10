import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { EmbedPage } from "./pages/embed-page";
import { WidgetPage } from "./pages/widget-page";

// The script-tag widget on a plain HTML page of another app: the page is served from another
// local origin (127.0.0.3, a port of its own, listed nowhere but on the embed token minted for
// it), loads /embed/widget.js from the console, chats with the demo agent, sees the tool call,
// approves it on the card and sees the final answer, then denies a second one. The token and the tags come from the Embed
// page's Widget tab, as a developer would copy them.

let server: http.Server;
let pageOrigin = "";
let body = "";

test.beforeAll(async () => {
  server = http.createServer((_request, response) => {
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Another app</title></head><body>${body}</body></html>`);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.3", resolve));
  pageOrigin = `http://127.0.0.3:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

test("the widget on another origin's page chats, shows the tool call, approves one refund and denies another", async ({ page }) => {
  const embed = new EmbedPage(page);
  await embed.open();
  await embed.chooseAgent("demo");
  await page.getByRole("tab", { name: "Widget" }).click();
  const form = page.getByRole("form", { name: "Mint an embed token" });
  await form.getByLabel("Your page’s origin").fill(pageOrigin);
  await form.getByRole("button", { name: "Mint an embed token" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Embed token" })).toContainText("minted");
  const snippet = (await page.getByTestId("snippet-widget").textContent()) ?? "";
  expect(snippet).toContain("/embed/widget.js");
  expect(snippet).toMatch(/token="aguic_[A-Za-z0-9_-]+"/);

  body = `<h1>Another app</h1><p>The console's agent, embedded with two tags:</p>${snippet}`;
  await page.goto(`${pageOrigin}/`);
  const widget = new WidgetPage(page);
  await widget.expectReady();
  await widget.send("refund order 1234 for 20 EUR");

  const card = widget.interruptCard("issue_refund");
  await expect(card).toBeVisible();
  await expect(card).toContainText('"orderId": "1234"');
  await expect(widget.toolCall("issue_refund")).toHaveAttribute("data-status", "awaiting_approval");
  await page.setViewportSize({ width: 1280, height: 900 });
  const shots = path.join("e2e", ".artifacts");
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "widget-approval.png") });

  await widget.approve("issue_refund");
  await expect(widget.toolCall("issue_refund")).toHaveAttribute("data-status", "succeeded");
  await expect(widget.toolCall("issue_refund")).toContainText('"refundId"');
  await expect(widget.lastAnswer()).toContainText("issued: 20 EUR for order 1234");
  await expect(card).toHaveCount(0);

  // A second refund, denied on its card: the tool does not run and the agent says so.
  await widget.send("refund order 5678 for 30 EUR");
  await expect(card).toContainText('"orderId": "5678"');
  await widget.deny("issue_refund");
  const denied = widget.toolCall("issue_refund").last();
  await expect(denied).toHaveAttribute("data-status", "denied");
  await expect(denied).not.toContainText('"refundId"');
  await expect(widget.lastAnswer()).toContainText("denied");
  await expect(widget.toolCall("issue_refund").first()).toHaveAttribute("data-status", "succeeded");
  await expect(card).toHaveCount(0);
});
