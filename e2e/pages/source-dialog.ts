import { expect, type Locator, type Page } from "@playwright/test";

/** What every dialog that adds a source has: an Import button, an error, a status and Close. */
export class SourceDialog {
  constructor(readonly root: Locator) {}

  /** Click Import (its label counts the tools). */
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

/** A dialog that adds a source by connecting to it (MCP server, A2A agent): test first, then import. */
export class ConnectSourceDialog extends SourceDialog {
  constructor(
    root: Locator,
    private readonly testLabels: { button: string; region: string },
  ) {
    super(root);
  }

  /** Click the dialog's opening button on the Sources page and wait for the dialog. */
  protected static async openFrom(page: Page, button: string, title: string): Promise<Locator> {
    await page.getByRole("button", { name: button }).click();
    const root = page.getByRole("dialog", { name: title });
    await expect(root).toBeVisible();
    return root;
  }

  testButton(): Locator {
    return this.root.getByRole("button", { name: this.testLabels.button });
  }

  /** Run the test and return what it found. */
  async test(): Promise<Locator> {
    await this.testButton().click();
    const result = this.root.getByRole("region", { name: this.testLabels.region });
    await expect(result).toBeVisible();
    return result;
  }

  async setOptions(options: { name?: string; prefix?: string }): Promise<void> {
    if (options.name !== undefined) await this.root.getByLabel("Source name (optional)").fill(options.name);
    if (options.prefix !== undefined) await this.root.getByLabel("Tool name prefix (optional)").fill(options.prefix);
  }
}
