import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import type { SqliteServices } from "@/lib/services";
import { countRows } from "../support/database";
import { testServices } from "../support/services";
import { startRecordingServer, type RecordingServer } from "../integrations/recording-server";

// OUTBOUND_ALLOW is empty here: the only way to reach the API on 127.0.0.1 is an admin's allowance on the source.
const petstore = fs.readFileSync(path.resolve(__dirname, "../../node_modules/@readme/oas-examples/3.0/json/petstore.json"), "utf8");

let api: RecordingServer;
let services: SqliteServices;
let file: string;
beforeAll(async () => {
  api = await startRecordingServer();
  api.respond = () => ({ json: { id: 7, name: "Rex", photoUrls: [] } });
  services = testServices();
  file = services.config.CONSOLE_DB;
});
afterAll(async () => {
  services.close();
  await api.close();
});

const send = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:3000${pathname}`, {
    method: "POST",
    headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const importBody = (allow?: string[], prefix = "pets_") => ({
  text: petstore,
  options: { prefix, baseUrl: api.url, ...(allow && { allow }) },
});
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string } }).error,
});
const callPet = (s: SqliteServices, name = "pets_getPetById") =>
  consoleApi(s).toolCalls.run(send(`/api/tools/${name}/calls`, { args: { petId: 7 } }), { params: Promise.resolve({ name }) });

describe("a source's own outbound allowance", () => {
  it("is refused to anyone but an admin, and nothing is written", async () => {
    const { token } = await services.tokens.create("tools-only", ["tools"]);
    const before = countRows(services.database, "sources");
    const refused = await consoleApi(services).sources.importDocument(
      send("/api/sources/openapi", importBody(["127.0.0.1/32"]), { authorization: `Bearer ${token}` }),
    );
    expect(await errorOf(refused)).toMatchObject({ status: 403, code: "forbidden", message: expect.stringContaining("admin") });
    expect(countRows(services.database, "sources")).toBe(before);
  });

  it("is checked entry by entry", async () => {
    const bad = await consoleApi(services).sources.importDocument(send("/api/sources/openapi", importBody(["10.0.0.0/33"])));
    expect(await errorOf(bad)).toMatchObject({ status: 422, code: "invalid_options", message: expect.stringContaining("10.0.0.0/33") });
  });

  it("lets an admin's source reach what it allows, for its calls and after a restart, and no other source", async () => {
    // Without an allowance the loopback API is refused.
    const plain = await consoleApi(services).sources.importDocument(send("/api/sources/openapi", importBody()));
    expect(await errorOf(plain)).toMatchObject({ status: 422, message: expect.stringContaining("loopback") });

    // The local operator is an admin: the allowance is taken and kept with the source.
    const imported = await consoleApi(services).sources.importDocument(send("/api/sources/openapi", importBody(["127.0.0.1/32"])));
    expect(imported.status).toBe(201);
    const { source } = (await imported.json()) as { source: { id: string; options: { allow?: string[] } } };
    expect(source.options.allow).toEqual(["127.0.0.1/32"]);
    const answer = (await (await callPet(services)).json()) as { result: { ok: boolean; value: unknown } };
    expect(answer.result).toMatchObject({ ok: true, value: { id: 7, name: "Rex", photoUrls: [] } });
    const reached = api.requests.length;

    // After a restart the handler is rebuilt from the stored binding, with the source's allowance.
    services.close();
    services = testServices({ CONSOLE_DB: file });
    const again = (await (await callPet(services)).json()) as { result: { ok: boolean } };
    expect(again.result.ok).toBe(true);
    expect(api.requests.length).toBe(reached + 1);

    // A refresh keeps it too.
    const refreshed = await consoleApi(services).sources.refresh(
      new Request(`http://127.0.0.1:3000/api/sources/${source.id}/refresh`, { method: "POST", headers: { host: "127.0.0.1:3000" } }),
      { params: Promise.resolve({ id: source.id }) },
    );
    expect(refreshed.status).toBe(200);
  });
});
