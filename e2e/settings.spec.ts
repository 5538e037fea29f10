import { expect, test } from "@playwright/test";
import { openAIChatWire } from "../lib/demo/model-server/openai-chat";
import { ScriptedModelServer } from "../lib/demo/model-server/server";
import { ChatPage } from "./pages/chat-page";
import { SettingsPage } from "./pages/settings-page";

// An admin gives the assistant a model on the Settings page, with no restart: a key typed once and
// never shown again, an OpenAI-compatible server on loopback (the scripted model server), a model
// name; then the assistant answers in Chat. The console under test starts with no provider key.

const KEY = "sk-e2e-settings-never-shown-0b1c";
const ADDED = "e2e-billing";
const OPENAI = "OpenAI (or an OpenAI-compatible server)";
let model: ScriptedModelServer;

test.beforeAll(async () => {
  model = await ScriptedModelServer.start({
    formats: [openAIChatWire],
    responder: () => ({ text: "Hello from the scripted model.", usage: { input: 9, output: 5 } }),
  });
});

test.afterAll(async ({ request }) => {
  // Other specs meet the console as it started: nothing set in Settings.
  await request.delete(`/api/settings/agents/${ADDED}`);
  await request.put("/api/settings", {
    data: { model: null, systemPrompt: null, maxSteps: null, tools: null, providers: { openai: { apiKey: null, baseUrl: null } } },
  });
  await model.close();
});

test("the nav leads to Settings, which says what to set while no model is configured", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  const settings = new SettingsPage(page);
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await expect(settings.modelInUse()).toContainText("set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY");
  await expect(settings.provider(OPENAI).getByTestId("key-status")).toHaveText("No key is set: set OPENAI_API_KEY or add one here.");
});

test("an admin sets a key, a local server and a model; the key is never shown; the assistant answers in Chat", async ({ page }) => {
  const settings = new SettingsPage(page);
  await settings.open();

  const openai = settings.provider(OPENAI);
  await openai.getByLabel("Key").fill(KEY);
  await openai.getByLabel("Base URL").fill(`${model.url}/v1`);
  await openai.getByRole("button", { name: "Save OpenAI" }).click();
  await expect(settings.saved()).toHaveText(`${OPENAI}: saved.`);
  await expect(openai.getByTestId("key-status")).toHaveText("A key is set here (in Settings).");
  await expect(openai.getByLabel("Replace the key")).toHaveValue("");

  await settings.saveAssistant({ model: "openai:e2e-model", systemPrompt: "Be brief.", tools: ["calculate"] });
  await expect(settings.modelInUse()).toContainText("openai-chat:e2e-model");

  // Read again from the server: still set, and the key is nowhere on the page.
  await settings.open();
  await expect(settings.provider(OPENAI).getByTestId("key-status")).toHaveText("A key is set here (in Settings).");
  expect(await page.content()).not.toContain(KEY);

  const chat = new ChatPage(page);
  await chat.openNew("assistant");
  await chat.send("Hello");
  await expect(chat.lastAnswer()).toContainText("Hello from the scripted model.");
  const sent = model.requests.at(-1)!;
  expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(openAIChatWire.read(sent.body, new URL(sent.path, model.url))).toMatchObject({ model: "e2e-model", system: "Be brief." });

  // Clearing the key here leaves no key: the page says so.
  await settings.open();
  await settings.provider(OPENAI).getByRole("button", { name: "Clear the key set here" }).click();
  await expect(settings.provider(OPENAI).getByTestId("key-status")).toHaveText("No key is set: set OPENAI_API_KEY or add one here.");
});

test("bad input is refused with what is wrong, and nothing changes", async ({ page }) => {
  const settings = new SettingsPage(page);
  await settings.open();
  const form = settings.assistant();
  await form.getByLabel("Model").fill("gpt-5-mini");
  await form.getByRole("button", { name: "Save assistant settings" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The settings were not saved" })).toContainText("must be provider:model");
  await settings.open();
  await expect(settings.assistant().getByLabel("Model")).toHaveValue("openai:e2e-model");
});

test("an admin adds an agent with its own model, prompt and tools, chats with it, edits it and removes it", async ({ page, request }) => {
  // The console's OpenAI base URL (shared by every agent) points at the scripted server; no key is needed there.
  expect((await request.put("/api/settings", { data: { providers: { openai: { baseUrl: `${model.url}/v1` } } } })).ok()).toBe(true);
  const settings = new SettingsPage(page);
  await settings.open();
  await settings.addAgent({
    name: ADDED,
    description: "Answers billing questions.",
    model: "openai:billing-e2e",
    systemPrompt: "You handle billing.",
    tools: ["calculate"],
  });
  const card = settings.agent(ADDED);
  await expect(card.getByTestId("agent-model")).toContainText("Uses openai-chat:billing-e2e");
  await expect(card).toContainText("Answers billing questions.");

  // Chat offers it at once, and the model gets its own model name, instructions and tools.
  const chat = new ChatPage(page);
  await chat.openNew(ADDED);
  await chat.send("Is my invoice paid?");
  await expect(chat.lastAnswer()).toContainText("Hello from the scripted model.");
  let sent = openAIChatWire.read(model.requests.at(-1)!.body, new URL(model.url));
  expect(sent).toMatchObject({ model: "billing-e2e", system: "You handle billing." });
  expect(sent.tools.map((t) => t.name)).toEqual(["calculate"]);

  // An edit applies to the next run.
  await settings.open();
  await settings.editAgent(ADDED, { systemPrompt: "Answer in French." });
  await expect(settings.agent(ADDED)).toContainText("Answer in French.");
  const frenchThread = await chat.openNew(ADDED);
  await chat.send("Bonjour");
  await expect(chat.lastAnswer()).toContainText("Hello from the scripted model.");
  sent = openAIChatWire.read(model.requests.at(-1)!.body, new URL(model.url));
  expect(sent.system).toBe("Answer in French.");

  // Removed: gone from the page and from the agent list.
  await settings.open();
  await settings.removeAgent(ADDED);
  await expect(settings.agent(ADDED)).toHaveCount(0);
  const listed = (await (await request.get("/api/agui")).json()) as { agents: Array<{ name: string }> };
  expect(listed.agents.map((a) => a.name)).not.toContain(ADDED);

  // Its threads stay readable, with nothing to send to.
  await chat.open(frenchThread);
  await expect(page.getByRole("heading", { name: `Chat with ${ADDED}` })).toBeVisible();
  await expect(page.locator('[data-role="user"]').getByText("Bonjour")).toBeVisible();
  await expect(chat.composer).toBeDisabled();
  await expect(chat.composer).toHaveAttribute("placeholder", /no longer served/);
});
