import { expect, type Locator, type Page } from "@playwright/test";

/** The tool list: search, filters and the virtualised results. */
export class ToolsPage {
  constructor(readonly page: Page) {}

  async open(query = ""): Promise<void> {
    await this.page.goto(`/tools${query}`);
    await expect(this.page.getByRole("heading", { name: "Tools", level: 1 })).toBeVisible();
  }

  async search(text: string): Promise<void> {
    await this.page.getByRole("searchbox", { name: "Search tools" }).fill(text);
  }

  async filter(label: "Source" | "Kind" | "Effect" | "Approval" | "Target" | "Enabled", option: string): Promise<void> {
    await this.page.getByLabel(label, { exact: true }).selectOption({ label: option });
  }

  /** "12 tools" and the like. */
  count(): Locator {
    return this.page.getByRole("status").filter({ hasText: /tools?\b/ });
  }

  results(): Locator {
    return this.page.getByRole("list", { name: "Tools found" });
  }

  toolLink(name: string): Locator {
    return this.results().getByRole("link", { name, exact: true });
  }
}
