import { expect, type Locator, type Page } from "@playwright/test";

/** The Embed page, as a developer uses it: pick an agent, create a token, copy a snippet. */
export class EmbedPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto("/embed");
    await expect(this.page.getByRole("heading", { name: "Embed", level: 1 })).toBeVisible();
  }

  async chooseAgent(name: string): Promise<void> {
    await this.page.getByRole("combobox", { name: "Agent" }).selectOption(name);
  }

  endpointUrl(): Locator {
    return this.page.getByTestId("endpoint-url");
  }

  /** Create a token with the given name and the scope choice whose label starts with `scopes`. */
  async createToken(name: string, scopes: RegExp = /^Chat with the agents/): Promise<void> {
    const form = this.page.getByRole("form", { name: "Create a token" });
    await form.getByLabel("Token name").fill(name);
    await form.getByRole("radio", { name: scopes }).check();
    await form.getByRole("button", { name: "Create a token" }).click();
  }

  /** The token shown once after creation. */
  newToken(): Locator {
    return this.page.getByTestId("new-token");
  }

  /** Why the token form's last request was refused. */
  tokenError(): Locator {
    return this.page.getByRole("form", { name: "Create a token" }).getByRole("alert");
  }

  /** The text of one snippet tab: "curl", "Node (@ag-ui/client)" or "React (CopilotKit)". */
  async snippet(tab: string): Promise<string> {
    await this.page.getByRole("tab", { name: tab }).click();
    return (await this.page.getByRole("tabpanel").locator("pre").textContent()) ?? "";
  }
}
