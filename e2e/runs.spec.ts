import { expect, test } from "@playwright/test";

const WORDS = 400;

test("a run still going streams onto its page, which shows the run's end when it comes", async ({ page, baseURL }) => {
  // A demo run of 400 words at the console's typing pace (12 ms a word): about five seconds, read by
  // a client elsewhere while the run's page is open.
  const runId = `live-${Date.now()}`;
  const response = await fetch(`${baseURL}/api/agui/demo`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      threadId: `t-${runId}`,
      runId,
      messages: [{ id: "u1", role: "user", content: `/stream ${WORDS}` }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  expect(response.status).toBe(200);
  const drained = response.text();

  await page.goto(`/runs/${runId}`);
  const status = page.locator("dd[data-status]");
  const note = page.getByRole("status").filter({ hasText: "still going" });
  const answer = page.locator('[data-role="assistant"]').last();
  const words = async () => (await answer.innerText()).split(/\s+/).filter(Boolean).length;
  await expect(status).toHaveAttribute("data-status", "running");
  await expect(note).toBeVisible();
  // The answer grows on the page while the run is still recorded as running: the events arrive
  // through the run's stream, not with a reload at the end.
  const first = await words();
  await expect
    .poll(async () => (await status.getAttribute("data-status")) === "running" && (await words()) > first + 20, { timeout: 10_000 })
    .toBe(true);

  await expect(status).toHaveAttribute("data-status", "finished", { timeout: 30_000 });
  await drained;
  await expect(note).toHaveCount(0);
  expect(await words()).toBe(WORDS);
  await expect(page.getByRole("tab", { name: /^Raw events/ })).toHaveText(/Raw events \(\d+\)/);
});
