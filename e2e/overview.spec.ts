import { expect, test } from "@playwright/test";
import { OverviewPage } from "./pages/overview-page";

test("the overview shows the console is up, with its tools and pending approvals", async ({ page }) => {
  const overview = new OverviewPage(page);
  await overview.open();
  await expect(overview.toolCount()).toHaveText("5");
  await expect(overview.pendingApprovals()).toHaveText("0");
  await expect(page.getByText("get_weather")).toBeVisible();
  await expect(overview.navLink("Approvals")).toBeVisible();
});

test("the health endpoint answers", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ ok: true, version: expect.any(String), db: { ok: true } });
});

test("pages refuse a Host the console does not serve (DNS rebinding)", async ({ request }) => {
  const response = await request.get("/approvals", { headers: { host: "evil.example" } });
  expect(response.status()).toBe(421);
  expect(await response.text()).toContain("does not serve the host");
});
