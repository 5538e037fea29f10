import { expect, type Locator, type Page } from "@playwright/test";

/** The chat page of one thread, as a person uses it. */
export class ChatPage {
  constructor(readonly page: Page) {}

  /** Open a new thread with `agent` (a fresh id, as the New chat button makes). */
  async openNew(agent = "demo"): Promise<string> {
    const threadId = `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    await this.page.goto(`/chat/${threadId}?agent=${agent}`);
    await expect(this.page.getByRole("heading", { name: `Chat with ${agent}` })).toBeVisible();
    return threadId;
  }

  async open(threadId: string): Promise<void> {
    await this.page.goto(`/chat/${threadId}`);
  }

  get composer(): Locator {
    return this.page.getByRole("textbox", { name: "Message" });
  }

  async send(text: string): Promise<void> {
    await this.composer.fill(text);
    await this.page.getByRole("button", { name: "Send" }).click();
  }

  status(): Locator {
    return this.page.getByLabel("Run status");
  }

  toolCall(name: string): Locator {
    return this.page.getByRole("article", { name: `Tool call ${name}` });
  }

  interruptCard(tool: string): Locator {
    return this.page.getByRole("region", { name: `Approval needed: ${tool}` });
  }

  assistantMessages(): Locator {
    return this.page.locator('[data-role="assistant"]');
  }

  lastAnswer(): Locator {
    return this.assistantMessages().last();
  }

  async approve(tool: string): Promise<void> {
    await this.interruptCard(tool).getByRole("button", { name: "Approve", exact: true }).click();
  }

  async deny(tool: string, reason: string): Promise<void> {
    const card = this.interruptCard(tool);
    await card.getByRole("button", { name: "Deny…" }).click();
    await card.getByLabel("Reason (optional, shown to the agent)").fill(reason);
    await card.getByRole("button", { name: "Confirm deny" }).click();
  }

  /** Open the edit form of a card and set fields by their labels, then approve. */
  async editAndApprove(tool: string, fields: Record<string, string>): Promise<void> {
    const card = this.interruptCard(tool);
    await card.getByRole("button", { name: "Edit arguments…" }).click();
    for (const [label, value] of Object.entries(fields))
      await card
        .getByRole("textbox", { name: label, exact: true })
        .or(card.getByRole("spinbutton", { name: label, exact: true }))
        .fill(value);
    await card.getByRole("button", { name: "Approve with these arguments" }).click();
  }
}
