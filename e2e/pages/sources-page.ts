import { expect, type Locator, type Page } from "@playwright/test";
import { SourceDialog } from "./source-dialog";

/** The Sources page: imported APIs, refresh and remove, and the OpenAPI import dialog. */
export class SourcesPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto("/sources");
    await expect(this.page.getByRole("heading", { name: "Sources", level: 1 })).toBeVisible();
  }

  /** Open the import dialog and return it. */
  async openImport(): Promise<ImportOpenApiDialog> {
    await this.page.getByRole("button", { name: "Import OpenAPI" }).click();
    const dialog = new ImportOpenApiDialog(this.page.getByRole("dialog", { name: "Import an OpenAPI document" }));
    await expect(dialog.root).toBeVisible();
    return dialog;
  }

  /** The table row of a source, found by its name. */
  row(name: string): Locator {
    return this.page.getByRole("row").filter({ has: this.page.getByRole("rowheader", { name }) });
  }

  async refresh(name: string): Promise<void> {
    await this.page.getByRole("button", { name: `Refresh ${name}` }).click();
  }

  /** The page's message after a refresh or a removal. */
  notice(): Locator {
    return this.page.getByRole("status").filter({ hasText: /^(Refreshed|Removed) / });
  }

  async remove(name: string): Promise<void> {
    await this.page.getByRole("button", { name: `Remove ${name}` }).click();
    await this.page
      .getByRole("group", { name: `Confirm removing ${name}` })
      .getByRole("button", { name: "Confirm remove" })
      .click();
  }
}

/** The OpenAPI import dialog, as a person fills it in. */
export class ImportOpenApiDialog extends SourceDialog {
  async paste(document: string): Promise<void> {
    await this.root.getByRole("radio", { name: "Paste JSON or YAML" }).check();
    await this.root.getByLabel("Document (JSON or YAML)").fill(document);
  }

  async upload(file: string): Promise<void> {
    await this.root.getByRole("radio", { name: "Upload a file" }).check();
    await this.root.getByLabel("OpenAPI file (JSON or YAML)").setInputFiles(file);
    await expect(this.root.getByText(/^Read .+ KB\)\.$/)).toBeVisible();
  }

  async setOptions(options: { prefix?: string; baseUrl?: string }): Promise<void> {
    if (options.prefix !== undefined) await this.root.getByLabel("Name prefix").fill(options.prefix);
    if (options.baseUrl !== undefined) await this.root.getByLabel("Base URL").fill(options.baseUrl);
  }

  async preview(): Promise<Locator> {
    await this.root.getByRole("button", { name: "Preview" }).click();
    const preview = this.root.getByRole("region", { name: "Preview" });
    await expect(preview).toBeVisible();
    return preview;
  }
}
