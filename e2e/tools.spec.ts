import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SourcesPage } from "./pages/sources-page";
import { ToolPage } from "./pages/tool-page";
import { ToolsPage } from "./pages/tools-page";

// Read from the installed package at run time, never copied into the repository.
const petstore = fs.readFileSync(path.resolve(__dirname, "../node_modules/@readme/oas-examples/3.0/json/petstore.json"), "utf8");

/** The Petstore API on loopback: answers GET /pet/{petId} with a pet, and records what it was asked. */
let api: http.Server;
let apiUrl: string;
const asked: string[] = [];

test.beforeAll(async () => {
  api = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    const match = /^\/pet\/(\d+)$/.exec(req.url ?? "");
    if (req.method === "GET" && match) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: Number(match[1]), name: "doggie", photoUrls: ["https://example.com/doggie.jpg"], status: "available" }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Pet not found" }));
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => api.close(resolve));
});

test("imports the pasted Petstore document, finds and tries a tool, and copies its OpenAI definition", async ({ page, context, baseURL }) => {
  // A prefix of its own, so the spec can run again against the same database.
  const prefix = `e2e${Date.now().toString(36)}_`;
  const tool = `${prefix}getPetById`;

  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await sources.openImport();
  await dialog.paste(petstore);
  await dialog.setOptions({ prefix, baseUrl: apiUrl, allowPrivate: true });
  const preview = await dialog.preview();
  await expect(preview).toContainText("Swagger Petstore");
  await expect(preview).toContainText("20 operations become tools");
  await expect(preview.getByRole("row").filter({ hasText: "GET /pet/{petId}" })).toContainText(tool);
  await dialog.import();
  await expect(dialog.status()).toContainText("Imported 20 tools from Swagger Petstore.");
  await dialog.close();
  await expect(sources.row("Swagger Petstore").first()).toContainText("20 tools");

  const tools = new ToolsPage(page);
  await tools.open();
  await tools.search(`${prefix}getpet`);
  await expect(tools.count()).toHaveText("1 tool");
  await tools.toolLink(tool).click();

  const toolPage = new ToolPage(page);
  await toolPage.expectOpen(tool);
  await toolPage.fillArgument(tool, "petId", "42");
  await toolPage.run(tool);
  await expect(toolPage.result(tool)).toContainText('"name": "doggie"');
  await expect(toolPage.result(tool)).toContainText('"id": 42');
  expect(asked).toContain("GET /pet/42");
  await expect(toolPage.recentCall(0)).toContainText("ok");

  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  await toolPage.exportTab("OpenAI Chat Completions").click();
  await expect(toolPage.exportTab("OpenAI Chat Completions")).toHaveAttribute("aria-selected", "true");
  const shown = await toolPage.exportJson("OpenAI Chat Completions").textContent();
  await toolPage.copyExport();
  await expect(toolPage.exportPanel().getByRole("button", { name: /^Copied\b/ })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(shown);
  expect(JSON.parse(copied)).toMatchObject({ type: "function", function: { name: tool, parameters: { type: "object" } } });

  // Leave the database as the other specs expect it: remove the source and its tools.
  await sources.open();
  await sources.remove("Swagger Petstore");
  await expect(page.getByRole("status").filter({ hasText: "Removed Swagger Petstore" })).toContainText("and its 20 tools");
  await expect(sources.row("Swagger Petstore")).toHaveCount(0);
});
