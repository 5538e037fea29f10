import path from "node:path";
import { expect, test } from "@playwright/test";
import { AddMcpDialog } from "./pages/add-mcp-dialog";
import { SourcesPage } from "./pages/sources-page";

// The console runs on loopback here, so the person at the browser is the local operator (an admin)
// and may add a server the console starts itself: the MCP "everything" reference server over stdio.
const everything = path.resolve(__dirname, "../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

test("adds the everything server by command, tests the connection, imports, calls a tool, refreshes and removes it", async ({
  page,
  request,
}) => {
  // A name and prefix of its own, so the spec can run again against the same database.
  const stamp = Date.now().toString(36);
  const name = `Everything ${stamp}`;
  const prefix = `ev${stamp}_`;

  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await AddMcpDialog.open(page);
  await dialog.useCommand(process.execPath, [everything, "stdio"]);
  await dialog.setOptions({ name, prefix });
  const tested = await dialog.test();
  await expect(tested).toContainText("Connected to Everything Reference Server");
  await expect(tested.getByRole("row").filter({ hasText: `${prefix}echo` })).toContainText("read");
  await expect(tested).toContainText("simulate-research-query");
  await dialog.import();
  await expect(dialog.status()).toContainText(`Imported 12 tools from ${name}.`);
  await dialog.close();
  await expect(sources.row(name)).toContainText("12 tools");
  await expect(sources.row(name)).toContainText("ok");

  const call = await request.post(`/api/tools/${prefix}echo/calls`, { data: { args: { message: "from e2e" } } });
  expect(call.status()).toBe(200);
  expect((await call.json()).result).toEqual({ ok: true, value: "Echo: from e2e" });

  // A tool that answers an image: Try it shows the image itself (the page's CSP lets it load).
  await page.goto(`/tools/${prefix}get-tiny-image`);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const image = page.getByRole("img", { name: `Image from ${prefix}get-tiny-image (image/png)` }).first();
  await expect(image).toBeVisible();
  expect(await image.evaluate((node: HTMLImageElement) => node.naturalWidth)).toBeGreaterThan(0);
  await expect(page.getByText("Here's the image you requested:").first()).toBeVisible();

  await sources.open();

  await sources.refresh(name);
  await expect(sources.notice()).toHaveText(`Refreshed ${name}: 12 tools.`);
  await sources.remove(name);
  await expect(sources.notice()).toHaveText(`Removed ${name} and its 12 tools.`);
  await expect(sources.row(name)).toHaveCount(0);
});

test("says what is wrong before and after testing a server that cannot be used", async ({ page }) => {
  const sources = new SourcesPage(page);
  await sources.open();
  const dialog = await AddMcpDialog.open(page);
  await dialog.useUrl("ftp://example.test/mcp");
  await expect(dialog.error()).toHaveText("The URL must start with http:// or https://.");
  await expect(dialog.testButton()).toBeDisabled();
  // Nothing listens on port 1: the test reports the failure and nothing is imported.
  await dialog.useUrl("http://127.0.0.1:1/mcp");
  await dialog.testButton().click();
  await expect(dialog.error()).toContainText("The connection test failed");
  await expect(dialog.error()).toContainText("cannot be reached");
});
