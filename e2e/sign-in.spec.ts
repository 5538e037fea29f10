import http from "node:http";
import { chromium, expect, test, type Browser, type Page } from "@playwright/test";
import { CHROMIUM_LAUNCH } from "./chromium";
import { createToken } from "./support/tokens";

// Someone on another machine reaches the console by a name in ALLOWED_HOSTS (console.test, which
// this browser resolves to 127.0.0.1): every page asks them to sign in, and what they may do
// follows their token. The CSP that the pages carry must not stop them from working.

const port = Number(process.env.E2E_PORT ?? 3100);
const remote = `http://console.test:${port}`;
let browser: Browser;
let stamp = Date.now();

test.beforeAll(async () => {
  browser = await chromium.launch({
    ...CHROMIUM_LAUNCH,
    args: [...CHROMIUM_LAUNCH.args, "--host-resolver-rules=MAP console.test 127.0.0.1"],
  });
});
test.afterAll(async () => browser.close());

/** A new page in a fresh browser profile, recording every CSP violation and script error. */
async function freshPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  return { page, problems };
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel("Token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("an operator off loopback signs in, works on the approvals page, and signs out", async () => {
  const token = createToken(`operator-${++stamp}`, ["agui", "approvals", "tools"]);
  const { page, problems } = await freshPage();
  await page.goto(`${remote}/approvals`);
  await expect(page).toHaveURL(`${remote}/sign-in?next=%2Fapprovals`);

  await signIn(page, "aguic_wrong");
  await expect(page.getByRole("alert").filter({ hasText: "unknown or revoked" })).toBeVisible();

  await signIn(page, token);
  await expect(page).toHaveURL(`${remote}/approvals`);
  await expect(page.getByRole("heading", { name: "Approvals", level: 1 })).toBeVisible();
  await expect(page.getByTestId("role")).toHaveText("operator");
  // Hydrated under the nonce CSP: the tabs answer clicks (a click before hydration is lost, so try again).
  const history = page.getByRole("tab", { name: "History" });
  await expect(async () => {
    await history.click();
    await expect(history).toHaveAttribute("aria-selected", "true", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  const cookie = (await page.context().cookies()).find((c) => c.name === "console_session");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${remote}/sign-in`);
  await page.goto(`${remote}/approvals`);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  // The wrong token's answer, and the live approval feed cut at sign-out, are 401s; nothing else failed.
  expect(problems.filter((p) => !p.includes("status of 401"))).toEqual([]);
});

test("a viewer sees tools and runs, but not approvals", async () => {
  const token = createToken(`viewer-${++stamp}`, ["agui"]);
  const { page, problems } = await freshPage();
  await page.goto(`${remote}/tools`);
  await signIn(page, token);
  await expect(page).toHaveURL(`${remote}/tools`);
  await expect(page.getByTestId("role")).toHaveText("viewer");
  await page.goto(`${remote}/approvals`);
  await expect(page.getByRole("note")).toContainText("approvals");
  // The overview lists the viewer's own runs only, as /runs does: not the local operator's.
  const thread = `local-${stamp}`;
  const local = await fetch(`http://127.0.0.1:${port}/api/agui/demo`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      threadId: thread,
      runId: `${thread}-r`,
      messages: [{ id: "u", role: "user", content: "hello" }],
      tools: [],
      context: [],
    }),
  });
  expect(await local.text()).toContain("RUN_FINISHED");
  await page.goto(`${remote}/`);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.getByTestId("stat-tools")).toBeVisible();
  await expect(page.getByText("by local")).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("an admin off loopback sees the token they signed in with in Settings; revoking it there signs them out", async () => {
  const name = `admin-${++stamp}`;
  const token = createToken(name, ["admin", "tools"]);
  const { page, problems } = await freshPage();
  await page.goto(`${remote}/settings`);
  await signIn(page, token);
  await expect(page).toHaveURL(`${remote}/settings`);
  const row = page.locator("section#tokens").getByRole("table", { name: "Active tokens" }).getByTestId(`token-${name}`);
  await expect(row).toContainText(`${name}(you)`);
  // Hydrated under the nonce CSP: the button answers clicks (a click before hydration is lost, so try again).
  await expect(async () => {
    await row.getByRole("button", { name: "Revoke…" }).click();
    await expect(row).toContainText("You signed in with it: revoking it signs you out.", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await expect(row).toHaveCount(0);
  // The session ended with the token: the next page asks to sign in again.
  await page.goto(`${remote}/settings`);
  await expect(page).toHaveURL(`${remote}/sign-in?next=%2Fsettings`);
  await expect(page.getByLabel("Token")).toBeVisible();
  expect(problems.filter((p) => !p.includes("status of 401"))).toEqual([]);
});

test("a page whose session ends while it is open goes to sign in at its next request, and comes back after", async () => {
  const name = `operator-${++stamp}`;
  const token = createToken(name, ["agui", "approvals", "tools"]);
  const { page } = await freshPage();
  await page.goto(`${remote}/tools`);
  await signIn(page, token);
  await expect(page).toHaveURL(`${remote}/tools`);
  await expect(page.getByRole("searchbox", { name: "Search tools" })).toBeVisible();

  // The token is revoked elsewhere (the local operator's API): the page's session ends with it.
  const local = `http://127.0.0.1:${port}`;
  const { tokens } = (await (await fetch(`${local}/api/tokens`)).json()) as { tokens: Array<{ id: string; name: string }> };
  const id = tokens.find((t) => t.name === name)!.id;
  expect((await fetch(`${local}/api/tokens/${id}`, { method: "DELETE" })).status).toBe(200);

  // The next search asks the API, is refused, and the page goes to sign in with where it was.
  await expect(async () => {
    await page.getByRole("searchbox", { name: "Search tools" }).fill(`refund${Math.random()}`.slice(0, 9));
    await expect(page).toHaveURL(/\/sign-in\?next=%2Ftools/, { timeout: 2000 });
  }).toPass({ timeout: 15_000 });
  await signIn(page, createToken(`operator-${++stamp}`, ["agui", "approvals", "tools"]));
  await expect(page).toHaveURL(new RegExp(`^${remote}/tools`));
  await expect(page.getByRole("heading", { name: "Tools", level: 1 })).toBeVisible();
});

test("the local operator needs no sign-in, and pages carry a nonce CSP that forbids framing", async ({ page }) => {
  const response = await page.goto("/approvals");
  const csp = response!.headers()["content-security-policy"]!;
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe-eval");
  expect(response!.headers()["x-content-type-options"]).toBe("nosniff");
  await expect(page.getByText("Local operator")).toBeVisible();
});

/** A raw request to the console (methods and paths a browser will not send). */
function raw(method: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method, path }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers }));
    });
    request.on("error", reject);
    request.end();
  });
}

test("an unsupported method is a 405 with Allow, a malformed path a 400, on pages and API alike", async () => {
  for (const path of ["/", "/api/health", "/api/tools"]) {
    const trace = await raw("TRACE", path);
    expect(trace.status).toBe(405);
    expect(trace.headers.allow).toContain("GET");
    expect(trace.headers["x-content-type-options"]).toBe("nosniff");
  }
  for (const path of ["/api/tools/%E0", "/api/tools/%ZZ", "/api/approvals/%C0%AF", "/tools/%E0"])
    expect((await raw("GET", path)).status).toBe(400);
  expect((await raw("GET", "/api/tools/ok%20name")).status).toBe(404);
});
