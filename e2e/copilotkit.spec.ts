import { expect, test, type ConsoleMessage, type Page } from "@playwright/test";
import { CopilotKitPage } from "./pages/copilotkit-page";

// CopilotKit 1.74's chat, loaded only on /embed/copilotkit, talking to the console's AG-UI endpoint
// for the demo agent as the local operator: a tool call shows as a card with its result; a refund
// pauses for approval, CopilotKit's useInterrupt asks, and Approve (or Deny) resumes the run, which
// CopilotKit sends under the paused run's id with a tool message of its own (the endpoint runs the
// refund once and keeps its own answer). The page must load under the console's CSP.

/** Console messages that say a Content-Security-Policy stopped something, and page errors. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message: ConsoleMessage) => {
    if (/Content[- ]Security[- ]Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  return problems;
}

test("CopilotKit chats with the demo agent: a tool call with its result, then a refund approved through useInterrupt", async ({ page }) => {
  const problems = watchProblems(page);
  const copilotkit = new CopilotKitPage(page);
  await copilotkit.open();
  // CopilotKit's stylesheet is there (its chat lays out as a flex column only with it).
  await expect(page.getByTestId("copilot-chat")).toHaveCSS("display", "flex");

  await copilotkit.send("weather in Paris");
  const weather = copilotkit.toolCall("get_weather");
  await expect(weather).toBeVisible();
  await expect(weather.getByLabel("Result")).toContainText('"city": "Paris"');
  await expect(copilotkit.conversation()).toContainText(/In Paris it is /);

  await copilotkit.send("refund order 1234 for 20 EUR");
  const approval = copilotkit.approval();
  await expect(approval).toBeVisible();
  await expect(approval).toContainText("issue_refund");
  await expect(approval).toContainText('"orderId": "1234"');
  await expect(copilotkit.toolCall("issue_refund")).toBeVisible();
  await approval.getByRole("button", { name: "Approve" }).click();

  await expect(approval).toBeHidden();
  await expect(copilotkit.toolCall("issue_refund").getByLabel("Result")).toContainText('"status": "issued"');
  await expect(copilotkit.conversation()).toContainText(/Refund RF-\S+ issued: 20 EUR for order 1234\./);
  expect(problems).toEqual([]);
});

test("Deny on CopilotKit's approval prompt: the refund does not run and the agent says so", async ({ page }) => {
  const problems = watchProblems(page);
  const copilotkit = new CopilotKitPage(page);
  await copilotkit.open("demo");
  await copilotkit.send("refund order 77 for 5 EUR");
  const approval = copilotkit.approval();
  await expect(approval).toBeVisible();
  await approval.getByRole("button", { name: "Deny" }).click();
  await expect(approval).toBeHidden();
  await expect(copilotkit.toolCall("issue_refund").getByLabel("Result")).toContainText('"ok": false');
  await expect(copilotkit.conversation()).toContainText(
    "I did not run issue_refund: the call was denied (reason: Denied on the CopilotKit page).",
  );
  expect(problems).toEqual([]);
});
