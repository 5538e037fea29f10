import type { Locator, Page } from "@playwright/test";
import { ConnectSourceDialog } from "./source-dialog";

/** The "Add MCP server" dialog on the Sources page, as a person fills it in. */
export class AddMcpDialog extends ConnectSourceDialog {
  constructor(root: Locator) {
    super(root, { button: "Test connection", region: "Connection test" });
  }

  /** Open the dialog from the Sources page. */
  static async open(page: Page): Promise<AddMcpDialog> {
    return new AddMcpDialog(await ConnectSourceDialog.openFrom(page, "Add MCP server", "Add an MCP server"));
  }

  async useUrl(url: string, bearer?: string): Promise<void> {
    await this.root.getByRole("radio", { name: "Streamable HTTP URL" }).check();
    await this.root.getByLabel("Server URL").fill(url);
    if (bearer !== undefined) await this.root.getByLabel(/^Bearer token/).fill(bearer);
  }

  async useCommand(command: string, args: string[]): Promise<void> {
    await this.root.getByRole("radio", { name: "Command (stdio)" }).check();
    await this.root.getByLabel("Command", { exact: true }).fill(command);
    await this.root.getByLabel("Arguments").fill(args.join("\n"));
  }
}
