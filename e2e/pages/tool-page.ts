import { expect, type Locator, type Page } from "@playwright/test";

/** One tool's page: schemas, policy, exports and Try it. */
export class ToolPage {
  constructor(readonly page: Page) {}

  async open(name: string): Promise<void> {
    await this.page.goto(`/tools/${encodeURIComponent(name)}`);
    await this.expectOpen(name);
  }

  async expectOpen(name: string): Promise<void> {
    await expect(this.page.getByRole("heading", { name, level: 1 })).toBeVisible();
  }

  tryForm(name: string): Locator {
    return this.page.getByRole("form", { name: `Try ${name}` });
  }

  /** Fill an argument field of the Try it form by its label (text or number). */
  async fillArgument(tool: string, label: string, value: string): Promise<void> {
    const form = this.tryForm(tool);
    await form
      .getByRole("spinbutton", { name: label, exact: true })
      .or(form.getByRole("textbox", { name: label, exact: true }))
      .fill(value);
  }

  async run(tool: string): Promise<void> {
    await this.tryForm(tool).getByRole("button", { name: "Run" }).click();
  }

  result(tool: string): Locator {
    return this.page.getByRole("region", { name: "Result" }).getByLabel(`Result of ${tool}`);
  }

  waitingForApproval(): Locator {
    return this.page.getByRole("region", { name: "Result" }).getByRole("status").filter({ hasText: "Waiting for approval" });
  }

  async checkAgain(): Promise<void> {
    await this.waitingForApproval().getByRole("button", { name: "Check again" }).click();
  }

  recentCall(index = 0): Locator {
    return this.page.getByRole("list", { name: "Recent calls" }).getByRole("listitem").nth(index);
  }

  policy(): Locator {
    return this.page.getByRole("form", { name: "Policy" });
  }

  async savePolicy(): Promise<void> {
    await this.policy().getByRole("button", { name: "Save policy" }).click();
    await expect(this.policy().getByRole("status")).toHaveText("Saved");
  }

  exportTab(label: string): Locator {
    return this.page.getByRole("tablist", { name: "Export formats" }).getByRole("tab", { name: label, exact: true });
  }

  exportPanel(): Locator {
    return this.page.getByRole("tabpanel");
  }

  /** The JSON the selected export tab shows. */
  exportJson(label: string): Locator {
    return this.exportPanel().getByLabel(`${label} JSON`, { exact: true });
  }

  async copyExport(): Promise<void> {
    await this.exportPanel()
      .getByRole("button", { name: /^Copy\b/ })
      .click();
  }
}
