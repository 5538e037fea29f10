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

test("imports the pasted Petstore document, finds and tries a tool, and copies its OpenAI definition", async ({
  page,
  context,
  baseURL,
}) => {
  // A prefix of its own, so the spec can run again against the same database.
  const prefix = `e2e${Date.now().toString(36)}_`;
  const tool = `${prefix}getPetById`;

  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await sources.openImport();
  await dialog.paste(petstore);
  await dialog.setOptions({ prefix, baseUrl: apiUrl });
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

  await sources.open();
  await sources.refresh("Swagger Petstore");
  await expect(sources.notice()).toHaveText("Refreshed Swagger Petstore: 20 tools.");
  await expect(sources.row("Swagger Petstore")).toContainText("ok");

  // Leave the database as the other specs expect it: remove the source and its tools.
  await sources.remove("Swagger Petstore");
  await expect(sources.notice()).toHaveText("Removed Swagger Petstore and its 20 tools.");
  await expect(sources.row("Swagger Petstore")).toHaveCount(0);
});

test("previews an uploaded YAML file, and shows a clear error for a broken document without registering anything", async ({
  page,
  request,
}) => {
  const before = (await (await request.get("/api/tools?limit=1")).json()).total;
  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await sources.openImport();
  await dialog.upload(path.resolve(__dirname, "../node_modules/@readme/oas-examples/3.0/yaml/petstore.yaml"));
  const preview = await dialog.preview();
  await expect(preview).toContainText("20 operations become tools");
  await expect(preview.getByRole("list", { name: "Warnings" })).toContainText("GET /pet/findByTags is deprecated");

  await dialog.paste("openapi: 3.0.0\ninfo: [broken");
  await dialog.root.getByRole("button", { name: "Preview" }).click();
  await expect(dialog.error()).toContainText("The document is not valid YAML");
  await dialog.paste(JSON.stringify({ openapi: "3.0.0", info: { title: "Empty", version: "1" }, paths: {} }));
  await dialog.root.getByRole("button", { name: "Preview" }).click();
  await expect(dialog.error()).toContainText("The document has no paths, so no operations to import");
  await dialog.close();
  expect((await (await request.get("/api/tools?limit=1")).json()).total).toBe(before);
});

test("a try that needs approval waits, and Check again answers the same call once it is approved", async ({ page, request }) => {
  const toolPage = new ToolPage(page);
  const title = `Printer on fire ${Date.now()}`;
  await toolPage.open("create_ticket");
  await toolPage.fillArgument("create_ticket", "title", title);
  const calls = (response: { url(): string; request(): { method(): string } }) =>
    response.url().endsWith("/api/tools/create_ticket/calls") && response.request().method() === "POST";
  const first = page.waitForResponse(calls);
  await toolPage.run("create_ticket");
  const pending = await (await first).json();
  expect(pending.result).toMatchObject({ pending: { approvalId: expect.any(String) } });
  await expect(toolPage.waitingForApproval()).toContainText(pending.result.pending.approvalId);
  await expect(toolPage.waitingForApproval().getByRole("link", { name: "Approvals page" })).toHaveAttribute("href", "/approvals");

  // Someone decides elsewhere (the Approvals page uses this endpoint).
  const decided = await request.post(`/api/approvals/${pending.result.pending.approvalId}/decision`, { data: { approved: true } });
  expect(decided.status()).toBe(200);

  const second = page.waitForResponse(calls);
  await toolPage.checkAgain();
  const answer = await second;
  expect(answer.request().postDataJSON()).toEqual({ args: { title, description: "", priority: "normal" }, callId: pending.callId });
  expect((await answer.json()).callId).toBe(pending.callId);
  await expect(toolPage.result("create_ticket")).toContainText('"status": "open"');
  await expect(toolPage.recentCall(0)).toContainText(title);
  await expect(toolPage.recentCall(0)).toContainText("ok");
});

test("pins a past call and runs it again with its arguments", async ({ page }) => {
  const toolPage = new ToolPage(page);
  await toolPage.open("get_weather");
  await toolPage.fillArgument("get_weather", "city", "Oslo");
  await toolPage.run("get_weather");
  await expect(toolPage.result("get_weather")).toContainText('"city": "Oslo"');
  await toolPage.fillArgument("get_weather", "city", "Lima");
  await toolPage.run("get_weather");
  await expect(toolPage.result("get_weather")).toContainText('"city": "Lima"');

  // Newest first: Lima, then Oslo. Pinning Oslo puts it on top.
  await expect(toolPage.recentCall(1)).toContainText('"city": "Oslo"');
  await toolPage.recentCall(1).getByRole("button", { name: "Pin" }).click();
  await expect(toolPage.recentCall(0)).toContainText("pinned");
  await expect(toolPage.recentCall(0).getByRole("button", { name: "Unpin" })).toHaveAttribute("aria-pressed", "true");
  await expect(toolPage.recentCall(0)).toContainText('"city": "Oslo"');

  await toolPage.recentCall(0).getByRole("button", { name: "Run again" }).click();
  await expect(toolPage.result("get_weather")).toContainText('"city": "Oslo"');
  await expect(toolPage.tryForm("get_weather").getByRole("textbox", { name: "city", exact: true })).toHaveValue("Oslo");

  await page.reload();
  await expect(toolPage.recentCall(0)).toContainText("pinned");
  await toolPage.recentCall(0).getByRole("button", { name: "Unpin" }).click();
  await expect(toolPage.recentCall(0).getByRole("button", { name: "Pin" })).toBeVisible();
});

test("the tool list stays virtualised with thousands of tools and loads more as it scrolls", async ({ page, request }) => {
  const count = 3000;
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count; i++)
    paths[`/items/${i}`] = {
      get: {
        operationId: `item${String(i).padStart(4, "0")}`,
        summary: `Read item ${i}`,
        tags: ["bulk"],
        responses: { "200": { description: "ok" } },
      },
    };
  const document = { openapi: "3.0.3", info: { title: "Bulk items", version: "1" }, servers: [{ url: "http://127.0.0.1:9" }], paths };
  const prefix = `bulk${Date.now().toString(36)}_`;
  const imported = await request.post("/api/sources/openapi", {
    data: { text: JSON.stringify(document), options: { prefix } },
  });
  expect(imported.status()).toBe(201);
  const sourceId = (await imported.json()).source.id as string;
  try {
    const tools = new ToolsPage(page);
    await tools.open(`?source=${sourceId}`);
    await expect(tools.count()).toHaveText("3,000 tools");
    await expect(tools.toolLink(`${prefix}item0000`)).toBeVisible();
    // Only the rows on screen (and a few more) are in the page.
    expect(await tools.results().getByRole("listitem").count()).toBeLessThan(60);

    const last = tools.toolLink(`${prefix}item${count - 1}`);
    await expect(async () => {
      await tools.results().evaluate((list) => list.parentElement!.scrollTo({ top: list.parentElement!.scrollHeight }));
      await expect(last).toBeVisible({ timeout: 500 });
    }).toPass({ timeout: 30_000 });
    expect(await tools.results().getByRole("listitem").count()).toBeLessThan(60);

    await tools.search("item2999");
    await expect(tools.count()).toHaveText("1 tool");
  } finally {
    expect((await request.delete(`/api/sources/${sourceId}`)).status()).toBe(200);
  }
});

test("the policy editor saves approval, timeout and targets, and the exports follow the targets", async ({ page, request }) => {
  const name = `policy${Date.now().toString(36)}_ping`;
  const document = {
    openapi: "3.1.0",
    info: { title: "Ping", version: "1" },
    servers: [{ url: "http://127.0.0.1:9" }],
    paths: { "/ping": { get: { operationId: "ping", responses: { "200": { description: "ok" } } } } },
  };
  const imported = await request.post("/api/sources/openapi", {
    data: { text: JSON.stringify(document), options: { prefix: name.replace(/ping$/, "") } },
  });
  expect(imported.status()).toBe(201);
  const sourceId = (await imported.json()).source.id as string;
  try {
    const toolPage = new ToolPage(page);
    await toolPage.open(name);
    const policy = toolPage.policy();
    await policy.getByLabel("Approval").selectOption({ label: "Always ask" });
    await policy.getByLabel("Timeout (ms)").fill("2500");
    await policy.getByRole("group", { name: "Targets" }).getByRole("checkbox", { name: "openai" }).uncheck();
    await toolPage.savePolicy();
    await expect(page.getByRole("list", { name: "Facts" })).toContainText("asks for approval");

    await toolPage.exportTab("OpenAI Responses").click();
    await expect(toolPage.exportPanel()).toContainText(`Tool "${name}" is not exported to openai`);
    await toolPage.exportTab("Anthropic").click();
    await expect(toolPage.exportJson("Anthropic")).toContainText(`"name": "${name}"`);
    // The tabs follow the keyboard pattern: arrows move and select.
    await page.keyboard.press("ArrowRight");
    await expect(toolPage.exportTab("Gemini")).toBeFocused();
    await expect(toolPage.exportTab("Gemini")).toHaveAttribute("aria-selected", "true");
    await expect(toolPage.exportJson("Gemini")).toContainText('"parametersJsonSchema"');

    const saved = await (await request.get(`/api/tools/${name}`)).json();
    expect(saved.tool).toMatchObject({ approval: "always", needsApproval: true, policy: { timeoutMs: 2500 } });
    expect(saved.tool.policy.targets).not.toContain("openai");

    await page.reload();
    await expect(policy.getByLabel("Approval")).toHaveValue("always");
    await expect(policy.getByLabel("Timeout (ms)")).toHaveValue("2500");
  } finally {
    expect((await request.delete(`/api/sources/${sourceId}`)).status()).toBe(200);
  }
});

test("Try it checks the arguments as they are typed, under the pages' CSP", async ({ page }) => {
  // The pages forbid eval, so a validator that compiles schemas could not run here: the form would
  // quietly accept anything until the server refused it.
  const toolPage = new ToolPage(page);
  await toolPage.open("issue_refund");
  const form = toolPage.tryForm("issue_refund");
  await form.getByRole("button", { name: "Raw JSON" }).click();
  const json = form.getByRole("textbox", { name: "Arguments as JSON" });
  await json.fill('{"orderId": 5, "amount": -1, "extra": true}');
  await expect(form).toContainText('/orderId Instance type "number" is invalid. Expected "string".');
  await expect(form).toContainText("/extra is not allowed");
  await expect(form).toContainText("/amount -1 is less than 0.");
  await expect(form.getByRole("button", { name: "Run" })).toBeDisabled();
  await json.fill('{"orderId": "1234", "amount": 20, "currency": "EUR"}');
  await expect(form.getByRole("listitem")).toHaveCount(0);
  await expect(form.getByRole("button", { name: "Run" })).toBeEnabled();
});

test("Try it lists what is missing only once the form is edited", async ({ page }) => {
  // An untouched form's empty required field is not a mistake yet: nothing is listed and Run is
  // offered; Run then leaves it to the browser to point at the field, and sends nothing.
  const toolPage = new ToolPage(page);
  await toolPage.open("calculate");
  const form = toolPage.tryForm("calculate");
  const run = form.getByRole("button", { name: "Run" });
  const expression = form.getByRole("textbox", { name: "expression", exact: true });
  await expect(form.getByRole("listitem")).toHaveCount(0);
  await expect(run).toBeEnabled();
  await run.click();
  expect(await expression.evaluate((field: HTMLTextAreaElement) => field.validity.valueMissing)).toBe(true);
  await expect(page.getByRole("region", { name: "Result" })).toHaveCount(0);
  // Once edited, the schema's complaints are listed as they are typed (typing before hydration is lost: try again).
  await expect(async () => {
    await expression.fill("2");
    await expression.fill("");
    await expect(form).toContainText("/expression String is too short (0 < 1).", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(run).toBeDisabled();
  await toolPage.fillArgument("calculate", "expression", "2+3");
  await expect(form.getByRole("listitem")).toHaveCount(0);
  await toolPage.run("calculate");
  await expect(toolPage.result("calculate")).toContainText('"result": 5');
});
