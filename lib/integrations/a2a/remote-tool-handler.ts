import { ToolError } from "../../execution/errors";
import type { ToolHandler } from "../../tools/handler";
import type { A2AConnection } from "./client-connection";
import type { A2ABinding } from "./plan-a2a-tools";
import { callRemoteSkill } from "./remote-call";

/**
 * The handler of an imported A2A skill: the call goes to the agent over the source's connection
 * (looked up at call time, so a refreshed card is used at once); see callRemoteSkill for what it
 * returns and which failures are ToolErrors.
 */
export function remoteSkillHandler(connection: () => Promise<A2AConnection>, binding: A2ABinding): ToolHandler {
  return async (args, call) => {
    let current: A2AConnection;
    try {
      current = await connection();
    } catch (error) {
      throw new ToolError(`The A2A agent of this tool is not available: ${(error as Error).message}`);
    }
    try {
      return await callRemoteSkill(current, binding, args, { signal: call.signal, principal: call.principal });
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      // What the model, the run's record and the log see never holds the source's secret.
      const details = error.details && (JSON.parse(current.redact(JSON.stringify(error.details))) as Record<string, unknown>);
      throw new ToolError(current.redact(error.message), details);
    }
  };
}
