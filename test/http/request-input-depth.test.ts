import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { consoleApi } from "@/lib/api";
import { createNodeServer, listenLocal } from "@/lib/http/node-adapter";
import { MAX_INPUT_DEPTH, readJson, readJsonBody } from "@/lib/http/request-input";
import type { SqliteServices } from "@/lib/services";
import { countRows } from "../support/database";
import { testServices } from "../support/services";

const post = (body: string) =>
  new Request("http://127.0.0.1/api/x", { method: "POST", headers: { "content-type": "application/json" }, body });

/** `{"a":{"a":…{}}}` nested `depth` times, as text. */
const deepObjectText = (depth: number) => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);

describe("request bodies are refused past the depth limit before they are parsed", () => {
  it(`reads ${MAX_INPUT_DEPTH} levels and refuses ${MAX_INPUT_DEPTH + 1} with 422 too_deep`, async () => {
    expect(MAX_INPUT_DEPTH).toBe(64);
    await expect(readJson(post(deepObjectText(64)))).resolves.toMatchObject({ a: { a: {} } });
    const error = await readJson(post(deepObjectText(65))).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "too_deep", message: expect.stringContaining("64 levels") });
  });

  it("refuses a 100,000-deep array at once, and before the schema sees it", async () => {
    const started = performance.now();
    const schema = z.object({ args: z.unknown() });
    await expect(readJsonBody(post(`{"args":${"[".repeat(100_000)}${"]".repeat(100_000)}}`), schema)).rejects.toMatchObject({
      kind: "too_deep",
    });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("takes brackets inside strings as text", async () => {
    const text = JSON.stringify({ note: "[".repeat(500) + '\\"' + "{".repeat(500) });
    await expect(readJson(post(text))).resolves.toEqual(JSON.parse(text));
  });
});

describe("over a real socket", () => {
  let services: SqliteServices;
  beforeAll(() => {
    services = testServices();
  });
  afterAll(() => services.close());

  it("a tool call whose arguments are nested 3,000 deep is a 422 and records nothing", async () => {
    const { toolCalls } = consoleApi(services);
    const server = createNodeServer([{ method: "POST", path: "/api/tools/[name]/calls", handler: toolCalls.run }]);
    const url = await listenLocal(server);
    const before = countRows(services.database, "call_results");
    try {
      const args = `{"text":${'{"a":'.repeat(3_000)}1${"}".repeat(3_000)}}`;
      const response = await fetch(`${url}/api/tools/calculate/calls`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"args":${args}}`,
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ error: { code: "too_deep" } });
      expect(countRows(services.database, "call_results")).toBe(before);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
