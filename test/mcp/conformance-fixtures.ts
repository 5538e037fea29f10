import { ToolError } from "@/lib/execution";
import type { ToolRegistry } from "@/lib/tools";

// The tools the MCP conformance suite's server scenarios call by name (test_simple_text, ...),
// registered as ordinary registry tools so the suite drives the console's own MCP handler, executor
// and record. Only what a registry tool can be is here: tools answer JSON values, so the scenarios
// that want image, audio or embedded-resource content, or that ask the client for sampling or form
// input, are expected failures (conformance-baseline.yml says why).

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const noArguments = { type: "object", properties: {}, additionalProperties: false } as const;

export async function registerConformanceFixtures(registry: ToolRegistry): Promise<void> {
  await registry.add(
    { name: "test_simple_text", description: "Answers a fixed text (conformance fixture)", inputSchema: noArguments },
    () => "This is a simple text response for testing.",
  );
  await registry.add({ name: "test_error_handling", description: "Always fails (conformance fixture)", inputSchema: noArguments }, () => {
    throw new ToolError("This tool intentionally returns an error for testing");
  });
  await registry.add(
    { name: "test_tool_with_logging", description: "Logs three messages while it runs (conformance fixture)", inputSchema: noArguments },
    async (_args, call) => {
      const log = (data: string) => call.report?.log("info", data);
      await log("Tool execution started");
      await pause(50);
      await log("Tool processing data");
      await pause(50);
      await log("Tool execution completed");
      return "Logging test completed";
    },
  );
  await registry.add(
    { name: "test_tool_with_progress", description: "Reports progress while it runs (conformance fixture)", inputSchema: noArguments },
    async (_args, call) => {
      for (const progress of [0, 50, 100]) {
        await call.report?.progress(progress, 100);
        if (progress < 100) await pause(50);
      }
      return "Progress test completed";
    },
  );
}
