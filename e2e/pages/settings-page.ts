import { expect, type Locator, type Page } from "@playwright/test";

/** The fields of an added agent's form that a test may set. */
export interface AgentFields {
  description?: string;
  model?: string;
  systemPrompt?: string;
  maxSteps?: string;
  tools?: "all" | string[];
}

async function fillAgent(form: Locator, options: AgentFields): Promise<void> {
  if (options.description !== undefined) await form.getByLabel("Description").fill(options.description);
  if (options.model !== undefined) await form.getByLabel("Model").fill(options.model);
  if (options.systemPrompt !== undefined) await form.getByLabel("System prompt").fill(options.systemPrompt);
  if (options.maxSteps !== undefined) await form.getByLabel("Step limit").fill(options.maxSteps);
  if (options.tools === "all") await form.getByRole("radio", { name: "Every tool served over AG-UI" }).check();
  else if (options.tools) {
    await form.getByRole("radio", { name: "Only the tools chosen here" }).check();
    const list = form.getByRole("list", { name: "Tools the agent may call" });
    for (const box of await list.getByRole("checkbox").all()) await box.uncheck();
    for (const name of options.tools) await list.getByRole("checkbox", { name: new RegExp(`^${name}\\b`) }).check();
  }
}

/** The Settings page, as an admin uses it: the agents (the assistant's form, the added agents) and one form per provider. */
export class SettingsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto("/settings");
    await expect(this.page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  }

  /** The API tokens section: the new-token form, the active tokens and the ended ones. */
  tokens(): Locator {
    return this.page.locator("section#tokens");
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

  /** The card of an agent added in Settings. */
  agent(name: string): Locator {
    return this.page.getByRole("article", { name: `Agent ${name}` });
  }

  /** The line each save of an added agent leaves ("Agent billing added."...). */
  agentSaved(): Locator {
    return this.page.getByRole("region", { name: "Added agents" }).getByRole("status");
  }

  /** Add an agent with the "Add an agent" form; waits for the page to say it was added. */
  async addAgent(options: AgentFields & { name: string; model: string }): Promise<void> {
    await this.page.getByRole("button", { name: "Add an agent" }).click();
    const form = this.page.getByRole("form", { name: "Add an agent" });
    await form.getByLabel("Name").fill(options.name);
    await fillAgent(form, options);
    await form.getByRole("button", { name: "Add agent" }).click();
    await expect(this.agentSaved()).toHaveText(`Agent ${options.name} added.`);
  }

  /** Change an added agent with its Edit form; waits for the page to say it was saved. */
  async editAgent(name: string, options: AgentFields): Promise<void> {
    await this.agent(name).getByRole("button", { name: "Edit" }).click();
    const form = this.agent(name).getByRole("form", { name: `Edit ${name}` });
    await fillAgent(form, options);
    await form.getByRole("button", { name: "Save agent" }).click();
    await expect(this.agentSaved()).toHaveText(`Agent ${name} saved.`);
  }

  async removeAgent(name: string): Promise<void> {
    await this.agent(name).getByRole("button", { name: "Remove" }).click();
    await this.agent(name).getByRole("button", { name: "Confirm remove" }).click();
    await expect(this.agentSaved()).toHaveText(`Agent ${name} removed.`);
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
