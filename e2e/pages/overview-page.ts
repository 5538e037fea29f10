import { expect, type Page } from "@playwright/test";

/** The console's landing page. */
export class OverviewPage {
  constructor(private readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto("/");
    await expect(this.page.getByRole("heading", { name: "Overview" })).toBeVisible();
  }

  toolCount() {
    return this.page.getByTestId("stat-tools");
  }

  pendingApprovals() {
    return this.page.getByTestId("stat-pending-approvals");
  }

  navLink(name: string) {
    return this.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name });
  }
}
