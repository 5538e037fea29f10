export { openAIAgentsAgent, RUN_STATE_KEY, type MakeSdkAgent, type OpenAIAgentsOptions } from "./openai-agents-agent";
export { openAIAgentsModel, type OpenAIAgentsModel, type OpenAIAgentsModelOptions } from "./openai-model";
export { openAIAgentsDemo, OPENAI_AGENTS_DEMO, type OpenAIAgentsDemoDeps } from "./demo";
