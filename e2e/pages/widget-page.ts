import { expect, type Locator, type Page } from "@playwright/test";

/** A page of another app with the console's <agui-chat> on it (Playwright's locators pierce its open shadow root). */
export class WidgetPage {
  constructor(readonly page: Page) {}

  chat(): Locator {
    return this.page.locator("agui-chat");
  }

  async send(text: string): Promise<void> {
    await this.chat().getByRole("textbox", { name: "Message" }).fill(text);
    await this.chat().getByRole("button", { name: "Send" }).click();
  }

  toolCall(name: string): Locator {
    return this.chat().getByRole("region", { name: `Tool call ${name}` });
  }

  interruptCard(tool: string): Locator {
    return this.chat().getByRole("region", { name: `Approval needed: ${tool}` });
  }

  async approve(tool: string): Promise<void> {
    await this.interruptCard(tool).getByRole("button", { name: "Approve" }).click();
  }

  async deny(tool: string): Promise<void> {
    await this.interruptCard(tool).getByRole("button", { name: "Deny" }).click();
  }

  /** The agent's last message in the conversation. */
  lastAnswer(): Locator {
    return this.chat().getByRole("log", { name: "Conversation" }).getByRole("article", { name: "Agent" }).last();
  }

  async expectReady(): Promise<void> {
    await expect(this.chat().getByRole("button", { name: "Send" })).toBeEnabled();
  }
}
