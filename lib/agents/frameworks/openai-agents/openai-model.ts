import { OpenAIProvider, type ModelProvider } from "@openai/agents";
import OpenAI from "openai";
import type { DriverOptions } from "../../models/driver";

export interface OpenAIAgentsModelOptions extends DriverOptions {
  /** Which OpenAI API the SDK speaks: "responses" (default) or "chat" (Chat Completions, for compatible servers). */
  api?: "responses" | "chat";
  /** Retries of a failed model request (the OpenAI client's own; its default when absent). */
  maxRetries?: number;
}

/** An OpenAI model as the Agents SDK takes it: a provider over the console's client, and the model name. */
export interface OpenAIAgentsModel {
  provider: ModelProvider;
  name: string;
  /** Shown in the UI next to the agent. */
  label: string;
  maxOutputTokens?: number;
}

/**
 * The model an SDK agent runs on, built from the driver options: the official `openai` client
 * pointed at `baseUrl` (OpenAI, any compatible server, or the scripted server in tests), with the
 * console's outbound guard as its fetch. Nothing global of the SDK is changed.
 */
export function openAIAgentsModel(options: OpenAIAgentsModelOptions): OpenAIAgentsModel {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseUrl && { baseURL: options.baseUrl }),
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
  });
  const api = options.api ?? "responses";
  return {
    provider: new OpenAIProvider({ openAIClient: client, useResponses: api === "responses" }),
    name: options.model,
    label: `openai:${options.model} (OpenAI Agents SDK, ${api === "responses" ? "Responses" : "Chat Completions"})`,
    ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
  };
}
