import { expect, type Locator, type Page } from "@playwright/test";

/** The "Add A2A agent" dialog on the Sources page, as a person fills it in. */
export class AddA2ADialog {
  constructor(readonly root: Locator) {}

  /** Open the dialog from the Sources page. */
  static async open(page: Page): Promise<AddA2ADialog> {
    await page.getByRole("button", { name: "Add A2A agent" }).click();
    const dialog = new AddA2ADialog(page.getByRole("dialog", { name: "Add an A2A agent" }));
    await expect(dialog.root).toBeVisible();
    return dialog;
  }

  async fill(options: { url: string; bearer?: string; name?: string; prefix?: string }): Promise<void> {
    await this.root.getByLabel("Agent URL").fill(options.url);
    if (options.bearer !== undefined) await this.root.getByLabel(/^Bearer token/).fill(options.bearer);
    if (options.name !== undefined) await this.root.getByLabel("Source name (optional)").fill(options.name);
    if (options.prefix !== undefined) await this.root.getByLabel("Tool name prefix (optional)").fill(options.prefix);
  }

  /** Click "Test agent" and return what it found. */
  async test(): Promise<Locator> {
    await this.root.getByRole("button", { name: "Test agent" }).click();
    const result = this.root.getByRole("region", { name: "Agent test" });
    await expect(result).toBeVisible();
    return result;
  }

  async import(): Promise<void> {
    await this.root.getByRole("button", { name: /^Import \d+ tools?$/ }).click();
  }

  error(): Locator {
    return this.root.getByRole("alert");
  }

  status(): Locator {
    return this.root.getByRole("status");
  }

  async close(): Promise<void> {
    await this.root.getByRole("button", { name: "Close" }).click();
    await expect(this.root).toBeHidden();
  }
}
