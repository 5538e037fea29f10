import { expect, test, type APIRequestContext } from "@playwright/test";
import { SettingsPage } from "./pages/settings-page";

// An admin connects an MCP client from another machine: the Sources page's MCP section links to
// Settings with the mcp scope chosen; the token is shown once, works on /api/mcp, shows its last
// use, and once revoked is refused.

const NAME = `e2e-mcp-${Date.now()}`;

test.afterAll(async ({ request }) => {
  // Other specs meet the console with no token of ours left active.
  const { tokens } = (await (await request.get("/api/tokens")).json()) as {
    tokens: Array<{ id: string; name: string; revokedAt: number | null }>;
  };
  for (const token of tokens.filter((t) => t.name === NAME && !t.revokedAt)) await request.delete(`/api/tokens/${token.id}`);
});

/** tools/list over MCP with `token` as the bearer: the HTTP status. */
async function listTools(request: APIRequestContext, token: string): Promise<number> {
  const response = await request.post("/api/mcp", {
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
    data: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  });
  return response.status();
}

test("a token for an MCP client: made from the Sources page's link, shown once, used, then revoked and refused", async ({
  page,
  request,
}) => {
  await page.goto("/sources");
  // The A2A section links the same way, with its own scope.
  await expect(page.locator("#a2a-client").getByRole("link", { name: "Make a token" })).toHaveAttribute(
    "href",
    "/settings?token_scope=a2a#tokens",
  );
  const link = page.locator("#mcp-client").getByRole("link", { name: "Make a token" });
  await expect(link).toHaveAttribute("href", "/settings?token_scope=mcp#tokens");
  await link.click();

  const settings = new SettingsPage(page);
  const tokens = settings.tokens();
  await expect(tokens.getByRole("heading", { name: "API tokens" })).toBeVisible();
  const form = tokens.getByRole("form", { name: "New token" });
  // The link chose the scope the client needs and a name to start from.
  await expect(form.getByLabel("Name")).toHaveValue("mcp-client");
  await expect(form.getByRole("checkbox", { name: /^mcp\b/ })).toBeChecked();
  await expect(form.getByRole("checkbox", { name: /^agui\b/ })).not.toBeChecked();

  // Nothing to send without a scope.
  await form.getByRole("checkbox", { name: /^mcp\b/ }).uncheck();
  await expect(form.getByRole("button", { name: "Create the token" })).toBeDisabled();
  await form.getByRole("checkbox", { name: /^mcp\b/ }).check();
  await form.getByLabel("Name").fill(NAME);
  await form.getByRole("button", { name: "Create the token" }).click();

  const notice = tokens.getByTestId("token-created");
  await expect(notice).toContainText(`Token ${NAME} created (mcp)`);
  await expect(notice.getByRole("link", { name: "the MCP client configuration" })).toHaveAttribute("href", "/sources#mcp-client");
  const secret = (await tokens.getByTestId("new-token").textContent())!;
  expect(secret).toMatch(/^aguic_[A-Za-z0-9_-]{43}$/);
  const row = tokens.getByRole("table", { name: "Active tokens" }).getByTestId(`token-${NAME}`);
  await expect(row).toContainText("mcp");
  await expect(row).toContainText("never");

  // The same name again is refused while the first is active.
  await form.getByLabel("Name").fill(NAME);
  await expect(form.getByRole("button", { name: "Create the token" })).toBeDisabled();
  await expect(form).toContainText("An active token has this name");

  // It works over MCP, as a wrong one does not; the list then shows when it was used, and never its secret.
  expect(await listTools(request, secret)).toBe(200);
  expect(await listTools(request, `${secret.slice(0, -4)}AAAA`)).toBe(401);
  await page.reload();
  await expect(tokens.getByTestId("new-token")).toHaveCount(0);
  await expect(page.getByText(secret)).toHaveCount(0);
  await expect(row.locator("time")).toHaveCount(2);

  // Revoked after a confirmation: refused at once, and listed with the ended tokens.
  await row.getByRole("button", { name: "Revoke…" }).click();
  await row.getByRole("button", { name: `Revoke ${NAME}` }).click();
  await expect(row).toHaveCount(0);
  expect(await listTools(request, secret)).toBe(401);
  await tokens.getByText(/^Revoked and expired/).click();
  await expect(tokens.getByRole("table", { name: "Revoked and expired tokens" }).getByTestId(`token-${NAME}`)).toContainText("revoked");
});
