import { expect, type Locator, type Page } from "@playwright/test";

/** The approvals inbox, as an operator uses it. */
export class ApprovalsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto("/approvals");
    await expect(this.page.getByRole("heading", { name: "Approvals", level: 1 })).toBeVisible();
  }

  /** Open the inbox at the link an MCP or A2A client is given for approval `id`. */
  async openLinked(id: string): Promise<void> {
    await this.page.goto(`/approvals?approval=${encodeURIComponent(id)}`);
    await expect(this.page.getByRole("heading", { name: "Approvals", level: 1 })).toBeVisible();
  }

  /** The row the link pointed at, on whichever tab shows it. */
  linkedRow(): Locator {
    return this.page.locator('li[data-linked="true"]');
  }

  pending(): Locator {
    return this.page.getByRole("list", { name: "Pending approvals" }).getByRole("listitem");
  }

  /** The pending row whose arguments contain `text`. */
  row(text: string): Locator {
    return this.pending().filter({ hasText: text });
  }

  async tab(name: "Pending" | "History"): Promise<void> {
    await this.page.getByRole("tab", { name }).click();
  }

  async search(text: string): Promise<void> {
    await this.page.getByLabel("Search").fill(text);
  }

  navCount(): Locator {
    return this.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /Approvals/ });
  }
}
