import { expect, type Locator, type Page } from "@playwright/test";

/** The Settings page, as an admin uses it: the assistant's form and one form per provider. */
export class SettingsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto("/settings");
    await expect(this.page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  }

  /** The line that says which model the assistant uses, or what to set. */
  modelInUse(): Locator {
    return this.page.getByTestId("model-in-use");
  }

  assistant(): Locator {
    return this.page.getByRole("form", { name: "Assistant" });
  }

  provider(label: "OpenAI (or an OpenAI-compatible server)" | "Anthropic" | "Gemini"): Locator {
    return this.page.getByRole("form", { name: label });
  }

  /** The line a save leaves ("Assistant settings saved.", "<provider>: saved."...). */
  saved(): Locator {
    return this.page.getByRole("status").filter({ hasText: /saved|cleared/ });
  }

  async saveAssistant(options: { model?: string; systemPrompt?: string; maxSteps?: string; tools?: "all" | string[] }): Promise<void> {
    const form = this.assistant();
    if (options.model !== undefined) await form.getByLabel("Model").fill(options.model);
    if (options.systemPrompt !== undefined) await form.getByLabel("System prompt").fill(options.systemPrompt);
    if (options.maxSteps !== undefined) await form.getByLabel("Step limit").fill(options.maxSteps);
    if (options.tools === "all") await form.getByRole("radio", { name: "Every tool served over AG-UI" }).check();
    else if (options.tools) {
      await form.getByRole("radio", { name: "Only the tools chosen here" }).check();
      const list = form.getByRole("list", { name: "Tools the assistant may call" });
      for (const box of await list.getByRole("checkbox").all()) await box.uncheck();
      for (const name of options.tools) await list.getByRole("checkbox", { name: new RegExp(`^${name}\\b`) }).check();
    }
    await form.getByRole("button", { name: "Save assistant settings" }).click();
    await expect(this.saved()).toHaveText("Assistant settings saved.");
  }
}
