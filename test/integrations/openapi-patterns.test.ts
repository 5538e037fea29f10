import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { importOpenApi, previewOpenApi, type OpenApiImportResult } from "@/lib/integrations/openapi";
import { createServices, type Services } from "@/lib/services";
import { tempDir } from "../support/services";
import { startRecordingServer, type RecordingServer } from "./recording-server";

let api: RecordingServer;
let services: Services;
let imported: OpenApiImportResult;

const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };

/** Patterns of every kind: ones RE2 runs in linear time, ones it refuses, one that is no regex at all. */
const document = () => ({
  openapi: "3.1.0",
  info: { title: "Patterns", version: "1" },
  servers: [{ url: api.url }],
  components: { schemas: { Secret: { type: "string", pattern: "^(?=.*\\d).{8,}$" } } },
  paths: {
    "/codes/{slug}": {
      post: {
        operationId: "postCode",
        parameters: [
          { name: "slug", in: "path", required: true, schema: { type: "string", pattern: "^(a+)+$" } },
          { name: "broken", in: "query", schema: { type: "string", pattern: "[unclosed" } },
          { name: "twice", in: "query", schema: { type: "string", pattern: "^(x)\\1$" } },
        ],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { secret: { $ref: "#/components/schemas/Secret" } },
                patternProperties: { "^(?!internal_)": { type: "string" } },
                additionalProperties: false,
              },
            },
          },
        },
        responses: ok,
      },
    },
  },
});

beforeAll(async () => {
  api = await startRecordingServer();
  const config = loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: path.join(tempDir(), "console.db"), OUTBOUND_ALLOW: "127.0.0.1/32" });
  services = createServices(config);
  imported = await importOpenApi(services, { document: document() });
});
afterAll(async () => {
  services.close();
  await api.close();
});
beforeEach(() => {
  api.requests.length = 0;
});

describe("patterns from an imported document", () => {
  it("each pattern the console cannot run is named in the import's warnings, and in the preview's", async () => {
    const expected = [
      expect.stringMatching(/^POST \/codes\/\{slug\}: inputSchema\/properties\/broken\/pattern is not a valid regular expression/),
      "POST /codes/{slug}: inputSchema/properties/twice/pattern uses a backreference, which the console's linear-time regex engine does not support; the console does not check it (the API still does)",
      "POST /codes/{slug}: inputSchema/properties/body/patternProperties/^(?!internal_) uses a negative lookahead (?!, which the console's linear-time regex engine does not support; the console does not check it (the API still does)",
      "POST /codes/{slug}: inputSchema/$defs/Secret/pattern uses a lookahead (?=, which the console's linear-time regex engine does not support; the console does not check it (the API still does)",
    ];
    expect(imported.warnings).toEqual(expected);
    expect((await previewOpenApi({ document: document() }, { outbound: services.outbound })).warnings).toEqual(expected);
  });

  it("calls still work: the dropped patterns are left to the API", async () => {
    const outcome = await services.executor.call("postCode", {
      slug: "aaa",
      broken: "x",
      twice: "y",
      body: { secret: "short", internal_note: "n" },
    });
    expect(outcome).toEqual({ ok: true, value: { ok: true } });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({ path: "/codes/aaa", query: { broken: ["x"], twice: ["y"] } });
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ secret: "short", internal_note: "n" });
  });

  it("a pattern that backtracks natively answers at once on 10,000 characters, and nothing is sent", async () => {
    await services.executor.call("postCode", { slug: "a" }); // compile outside the timing
    api.requests.length = 0;
    const started = performance.now();
    const outcome = await services.executor.call("postCode", { slug: `${"a".repeat(10_000)}!` });
    expect(performance.now() - started).toBeLessThan(100);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "invalid_arguments", message: expect.stringContaining("/slug") } });
    expect(api.requests).toEqual([]);
  });

  it("the stored schema keeps the patterns it can check and loses only the others", () => {
    type Schema = { [key: string]: Schema } & { type?: string; pattern?: string };
    const schema = services.registry.get("postCode")!.inputSchema as unknown as Schema;
    expect(schema.properties!.slug).toEqual({ type: "string", pattern: "^(a+)+$" });
    expect(schema.properties!.twice).toEqual({ type: "string" });
    expect(schema.properties!.body!.patternProperties).toEqual({});
    expect(schema.properties!.body!.additionalProperties).toBeUndefined();
    expect(schema.$defs!.Secret).toEqual({ type: "string" });
  });
});
