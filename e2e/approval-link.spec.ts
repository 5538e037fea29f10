import { expect, test, type APIRequestContext } from "@playwright/test";
import { ApprovalsPage } from "./pages/approvals-page";

// What an MCP client without tasks or URL elicitation is told when a call waits: an isError result
// whose _meta names the approval and the console page where a person decides it.
const APPROVAL_ID = "agui-console/approval_id";
const APPROVAL_URL = "agui-console/approval_url";

/** Ask for a refund over MCP, as any MCP client would; returns the approval's id and link. */
async function refundOverMcp(request: APIRequestContext, orderId: string): Promise<{ id: string; link: string }> {
  const response = await request.post("/api/mcp", {
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    data: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "issue_refund", arguments: { orderId, amount: 5 } } },
  });
  expect(response.status()).toBe(200);
  const data = (await response.text()).split("\n").find((line) => line.startsWith("data: "));
  const meta = (JSON.parse(data!.slice("data: ".length)) as { result: { _meta: Record<string, string> } }).result._meta;
  return { id: meta[APPROVAL_ID]!, link: meta[APPROVAL_URL]! };
}

/** The approvals a test left pending, denied afterwards: the specs that follow count pending approvals. */
const leftPending: string[] = [];
test.afterEach(async ({ request }) => {
  if (!leftPending.length) return;
  const ids = leftPending.splice(0);
  const answer = await request.post("/api/approvals/decisions", { data: { ids, approved: false, reason: "spec clean-up" } });
  expect(answer.status()).toBe(200);
});

test("the link an MCP client is given opens the inbox on that approval, marked, to decide with one click", async ({ page, request }) => {
  const order = `L${Date.now()}`.slice(-8);
  const { id, link } = await refundOverMcp(request, order);
  // More requests arrive after it: the linked one is no longer on the first page of 50.
  for (let i = 0; i < 51; i++) leftPending.push((await refundOverMcp(request, `${order}-${i}`)).id);

  await page.setViewportSize({ width: 1280, height: 900 });
  const inbox = new ApprovalsPage(page);
  await page.goto(new URL(link).pathname + new URL(link).search);
  const row = inbox.linkedRow();
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-approval-id", id);
  await expect(row).toHaveAttribute("aria-current", "true");
  await expect(row).toContainText(`"${order}"`);
  await expect(row).toContainText("asked by local via mcp");
  await expect(row).toBeInViewport();
  await expect(row).toBeFocused();
  await expect(page.getByRole("tab", { name: "Pending" })).toHaveAttribute("aria-selected", "true");

  await row.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(inbox.pending().and(page.locator(`[data-approval-id="${id}"]`))).toHaveCount(0);
  const decided = await request.get(`/api/approvals/${encodeURIComponent(id)}`);
  expect(((await decided.json()) as { approval: { status: string } }).approval.status).toBe("approved");

  // Once decided, the same link opens the history with the decision shown.
  await inbox.openLinked(id);
  await expect(page.getByRole("tab", { name: "History" })).toHaveAttribute("aria-selected", "true");
  await expect(inbox.linkedRow()).toHaveAttribute("data-approval-id", id);
  await expect(inbox.linkedRow()).toContainText("approved");
  await expect(inbox.linkedRow()).toContainText("decided by local");
});

test("a link to an approval that does not exist says so and shows the inbox as usual", async ({ page }) => {
  const inbox = new ApprovalsPage(page);
  await inbox.openLinked("no-such-approval");
  await expect(page.getByRole("status").filter({ hasText: "No approval has the id no-such-approval" })).toBeVisible();
  await expect(inbox.linkedRow()).toHaveCount(0);
});
