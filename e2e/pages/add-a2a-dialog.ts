import type { Locator, Page } from "@playwright/test";
import { ConnectSourceDialog } from "./source-dialog";

/** The "Add A2A agent" dialog on the Sources page, as a person fills it in. */
export class AddA2ADialog extends ConnectSourceDialog {
  constructor(root: Locator) {
    super(root, { button: "Test agent", region: "Agent test" });
  }

  /** Open the dialog from the Sources page. */
  static async open(page: Page): Promise<AddA2ADialog> {
    return new AddA2ADialog(await ConnectSourceDialog.openFrom(page, "Add A2A agent", "Add an A2A agent"));
  }

  async fill(options: { url: string; bearer?: string; name?: string; prefix?: string }): Promise<void> {
    await this.root.getByLabel("Agent URL").fill(options.url);
    if (options.bearer !== undefined) await this.root.getByLabel(/^Bearer token/).fill(options.bearer);
    await this.setOptions(options);
  }
}
