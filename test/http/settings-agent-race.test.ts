import { describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import { testServices } from "../support/services";

const local = (method: string, body?: BodyInit) =>
  new Request("http://127.0.0.1:3000/api/settings/agents", {
    method,
    headers: { host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000", "content-type": "application/json" },
    ...(body !== undefined && { body, duplex: "half" }),
  } as RequestInit);

describe("changing an added agent while it is removed", () => {
  it("a change whose body arrives after the removal writes nothing back: the agent stays removed", async () => {
    const services = testServices();
    const { settings } = consoleApi(services);
    const params = { params: Promise.resolve({ name: "billing" }) };
    expect((await settings.createAgent(local("POST", JSON.stringify({ name: "billing", model: "openai:gpt-5-mini" })))).status).toBe(201);

    // The change's body comes in slowly; the removal lands while it is read.
    let finish!: () => void;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"systemPrompt":'));
        await new Promise<void>((resolve) => (finish = resolve));
        controller.enqueue(new TextEncoder().encode('"Be brief."}'));
        controller.close();
      },
    });
    const change = settings.updateAgent(local("PUT", body), params);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await settings.removeAgent(local("DELETE"), params)).status).toBe(200);
    finish();
    expect((await change).status).toBe(404);
    expect(services.settings.many(["agents.billing"])).toEqual([]);
    expect(services.agents.get("billing")).toBeUndefined();
    services.close();
  });
});
