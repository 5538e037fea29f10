/** What every provider driver is built from. */
export interface DriverOptions {
  /** The provider's model name, e.g. "gpt-5-mini", "claude-sonnet-4-5", "gemini-2.5-flash". */
  model: string;
  apiKey: string;
  /** The API's base URL: an OpenAI-compatible server (Ollama, vLLM...), or the scripted server in tests. */
  baseUrl?: string;
  /** The fetch every request goes through (the console's outbound guard); the SDK's own when absent. */
  fetch?: typeof fetch;
  /** Output token cap per model call. */
  maxOutputTokens?: number;
}
