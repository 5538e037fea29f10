import { expect, type Locator, type Page } from "@playwright/test";

/** The "Add MCP server" dialog on the Sources page, as a person fills it in. */
export class AddMcpDialog {
  constructor(readonly root: Locator) {}

  /** Open the dialog from the Sources page. */
  static async open(page: Page): Promise<AddMcpDialog> {
    await page.getByRole("button", { name: "Add MCP server" }).click();
    const dialog = new AddMcpDialog(page.getByRole("dialog", { name: "Add an MCP server" }));
    await expect(dialog.root).toBeVisible();
    return dialog;
  }

  async useUrl(url: string, bearer?: string): Promise<void> {
    await this.root.getByRole("radio", { name: "Streamable HTTP URL" }).check();
    await this.root.getByLabel("Server URL").fill(url);
    if (bearer) await this.root.getByLabel(/^Bearer token/).fill(bearer);
  }

  async useCommand(command: string, args: string[]): Promise<void> {
    await this.root.getByRole("radio", { name: "Command (stdio)" }).check();
    await this.root.getByLabel("Command", { exact: true }).fill(command);
    await this.root.getByLabel("Arguments").fill(args.join("\n"));
  }

  async setOptions(options: { name?: string; prefix?: string }): Promise<void> {
    if (options.name !== undefined) await this.root.getByLabel("Source name (optional)").fill(options.name);
    if (options.prefix !== undefined) await this.root.getByLabel("Tool name prefix (optional)").fill(options.prefix);
  }

  /** Click "Test connection" and return what it found. */
  async test(): Promise<Locator> {
    await this.root.getByRole("button", { name: "Test connection" }).click();
    const result = this.root.getByRole("region", { name: "Connection test" });
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
