import { expect, test } from "@playwright/test";
import { OverviewPage } from "./pages/overview-page";

test("the overview shows the console is up, with its tools and pending approvals", async ({ page }) => {
  const overview = new OverviewPage(page);
  await overview.open();
  await expect(overview.toolCount()).toHaveText("5");
  await expect(overview.pendingApprovals()).toHaveText("0");
  await expect(page.getByText("get_weather")).toBeVisible();
  await expect(overview.navLink("Approvals")).toBeVisible();
  await expect(page.getByTestId("stat-sources")).toHaveText(/^\d+$/);
  await expect(page.getByTestId("stat-runs-now")).toHaveText(/^\d+\+?$/);
});

test("the overview points a new user at chat, import, embedding and serving, and lists the latest runs", async ({ page }) => {
  const overview = new OverviewPage(page);
  const thread = `overview-${Date.now()}`;
  const started = await page.request.post(`/api/agui/demo`, {
    data: { threadId: thread, runId: `${thread}-r1`, messages: [{ id: "u1", role: "user", content: "hello" }], tools: [], context: [] },
    headers: { accept: "text/event-stream" },
  });
  expect(await started.text()).toContain("RUN_FINISHED");
  await overview.open();
  const next = page.getByRole("region", { name: "Where to go from here" });
  const links: Array<[string, string]> = [
    ["Chat with an agent", "/chat"],
    ["Import tools", "/sources"],
    ["Put an agent in your app", "/embed"],
    ["Serve these tools over MCP and A2A", "/sources#serve"],
  ];
  for (const [name, href] of links) await expect(next.getByRole("link", { name })).toHaveAttribute("href", href);
  await next.getByRole("link", { name: "Serve these tools over MCP and A2A" }).click();
  await expect(page.getByRole("heading", { name: "Use these tools from an A2A agent" })).toBeVisible();
  await overview.open();
  const latest = page.getByRole("region", { name: "Latest runs" });
  await expect(latest.getByRole("listitem").first()).toContainText("demo");
  await expect(latest.getByRole("listitem").first()).toContainText("finished");
});

test("the health endpoint answers", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ ok: true, version: expect.any(String), db: { ok: true } });
});

test("the benchmarks' baseline routes are not served unless CONSOLE_BENCH_ROUTES=1", async ({ request }) => {
  for (const path of ["/api/bench/empty", "/api/bench/mcp", "/api/bench/a2a"]) {
    const response = await request.post(path, { data: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "noop" } } });
    expect(response.status(), path).toBe(404);
  }
});

test("pages refuse a Host the console does not serve (DNS rebinding)", async ({ request }) => {
  const response = await request.get("/approvals", { headers: { host: "evil.example" } });
  expect(response.status()).toBe(421);
  expect(await response.text()).toContain("does not serve the host");
});
