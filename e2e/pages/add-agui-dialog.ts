import type { Locator, Page } from "@playwright/test";
import { ConnectSourceDialog } from "./source-dialog";

/** The "Add AG-UI agent" dialog on the Sources page, as a person fills it in. */
export class AddAguiDialog extends ConnectSourceDialog {
  constructor(root: Locator) {
    super(root, { button: "Test endpoint", region: "Endpoint test" });
  }

  /** Open the dialog from the Sources page. */
  static async open(page: Page): Promise<AddAguiDialog> {
    return new AddAguiDialog(await ConnectSourceDialog.openFrom(page, "Add AG-UI agent", "Add a remote AG-UI agent"));
  }

  async fill(options: { name: string; url: string; bearer?: string }): Promise<void> {
    await this.root.getByLabel("Name", { exact: true }).fill(options.name);
    await this.root.getByLabel("Endpoint URL").fill(options.url);
    if (options.bearer !== undefined) await this.root.getByLabel(/^Bearer token/).fill(options.bearer);
  }

  /** Add the tested endpoint as a source (its agent is remote:<name>). */
  async add(): Promise<void> {
    await this.root.getByRole("button", { name: "Add agent" }).click();
  }
}
