import { ToolError } from "@/lib/execution";
import type { ToolRegistry } from "@/lib/tools";
import { RED_DOT_PNG } from "../support/media";

// The tools the MCP conformance suite's server scenarios call by name (test_simple_text, ...),
// registered as ordinary registry tools so the suite drives the console's own MCP handler, executor
// and record. Only what a registry tool can be is here: tools answer JSON values, and a value made of
// MCP content blocks (lib/integrations/content-value.ts, what an imported tool's image becomes)
// is served as those blocks. The scenarios that ask the client for sampling or form input are
// expected failures (conformance-baseline.yml says why).

const PNG = RED_DOT_PNG;
/** A WAV file of two silent 8-bit samples at 8 kHz. */
const WAV = Buffer.concat([
  Buffer.from("RIFF"),
  Buffer.from([38, 0, 0, 0]),
  Buffer.from("WAVEfmt "),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x40, 0x1f, 0, 0, 1, 0, 8, 0]),
  Buffer.from("data"),
  Buffer.from([2, 0, 0, 0, 128, 128]),
]).toString("base64");

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
  const answering = async (name: string, description: string, content: unknown[]) =>
    registry.add({ name, description: `${description} (conformance fixture)`, inputSchema: noArguments }, () => ({ content }));
  await answering("test_image_content", "Answers an image", [{ type: "image", data: PNG, mimeType: "image/png" }]);
  await answering("test_audio_content", "Answers a sound", [{ type: "audio", data: WAV, mimeType: "audio/wav" }]);
  await answering("test_embedded_resource", "Answers an embedded resource", [
    {
      type: "resource",
      resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
    },
  ]);
  await answering("test_multiple_content_types", "Answers text, an image and a resource", [
    { type: "text", text: "Multiple content types test:" },
    { type: "image", data: PNG, mimeType: "image/png" },
    {
      type: "resource",
      resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) },
    },
  ]);
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
