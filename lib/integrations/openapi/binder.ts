import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import type { SourceStore } from "../../db/sources";
import type { ToolHandler } from "../../tools/handler";
import type { ToolRegistry } from "../../tools/registry";
import { OpenApiBinding } from "./binding";
import { sourceCredentials } from "./credentials";
import { operationHandler } from "./operation-handler";

/**
 * Let the registry rebuild the handlers of OpenAPI tools from their stored bindings (after a
 * restart, say). A binding that no longer parses leaves the tool without a handler, and its calls
 * fail as ToolFailed with the reason in the log.
 */
export function registerOpenApiBinder(registry: ToolRegistry, sources: SourceStore, logger: Logger, outbound: OutboundGuard): void {
  registry.registerBinder("openapi", (tool) => {
    const parsed = OpenApiBinding.safeParse(tool.binding);
    if (!parsed.success) {
      logger.error("openapi tool has an unusable binding", { tool: tool.name, issue: parsed.error.issues[0]?.message });
      return undefined;
    }
    const credentials = sourceCredentials(sources, tool.sourceId);
    const sourceId = tool.sourceId;
    if (!sourceId) return operationHandler(parsed.data, { credentials, logger, outbound });
    // A source an admin allowed more reaches what it was allowed, on every rebuild: the source's
    // row is read at the first call of the rebuilt handler (read again if that read failed).
    let handler: Promise<ToolHandler> | undefined;
    return async (args, call) => {
      handler ??= sources.get(sourceId).then(
        (source) => operationHandler(parsed.data, { credentials, logger, outbound: outbound.forSource(source?.options) }),
        (error: unknown) => {
          handler = undefined;
          throw error;
        },
      );
      return (await handler)(args, call);
    };
  });
}
