import { expect, type Locator, type Page } from "@playwright/test";

/** The live CopilotKit page: CopilotKit's own chat on a console agent, with the console's tool cards and approval prompt. */
export class CopilotKitPage {
  constructor(readonly page: Page) {}

  async open(agent?: string): Promise<void> {
    await this.page.goto(agent ? `/embed/copilotkit?agent=${encodeURIComponent(agent)}` : "/embed/copilotkit");
    await expect(this.page.getByRole("heading", { name: "CopilotKit", level: 1 })).toBeVisible();
    // CopilotKit arrives by a dynamic import: ready once its composer is there.
    await expect(this.composer()).toBeVisible({ timeout: 30_000 });
  }

  composer(): Locator {
    return this.page.getByTestId("copilotkit-chat").getByRole("textbox");
  }

  async send(text: string): Promise<void> {
    await this.composer().fill(text);
    await this.composer().press("Enter");
  }

  /** A tool call's card (the page's wildcard renderer). */
  toolCall(name: string): Locator {
    return this.page.getByRole("group", { name: `Tool call ${name}` });
  }

  /** The approval prompt CopilotKit's useInterrupt shows for a paused call. */
  approval(): Locator {
    return this.page.getByRole("group", { name: "Approval" });
  }

  /** The chat's messages, as text. */
  conversation(): Locator {
    return this.page.getByTestId("copilotkit-chat");
  }
}
