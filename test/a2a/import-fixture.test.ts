import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import type { SourceImportAnswer } from "@/lib/api/contracts";
import type { A2ATestResult } from "@/lib/integrations/a2a/import-a2a";
import type { SqliteServices } from "@/lib/services";
import { countRows } from "../support/database";
import { PICTURE_PNG, startFixtureAgent, type FixtureAgent } from "../support/a2a-fixture-agent";
import { testServices } from "../support/services";
import { valueOf, failureOf } from "../support/outcomes";

// A small A2A agent built with the SDK (1.0, and 0.3 for the compatibility layer) on 127.0.0.1,
// imported through the REST handlers of a console that may reach loopback (OUTBOUND_ALLOW).

let agent: FixtureAgent;
let services: SqliteServices;
/** No OUTBOUND_ALLOW: loopback is refused. */
let strict: SqliteServices;

beforeAll(async () => {
  agent = await startFixtureAgent();
  services = testServices({ OUTBOUND_ALLOW: "127.0.0.1/32" });
  strict = testServices();
});
afterAll(async () => {
  services.close();
  strict.close();
  await agent.close();
});

const send = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:3000${pathname}`, {
    method: "POST",
    headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string } }).error,
});

describe("importing an A2A agent (v1.0)", () => {
  let sourceId: string;
  const body = () => ({ url: agent.base, bearer: "a2a-secret-token", options: { prefix: "fx_" } });

  it("POST /api/sources/a2a/test reads the card and says which tools it would make, registering nothing", async () => {
    const tools = services.registry.count();
    const response = await consoleApi(services).sources.testA2A(send("/api/sources/a2a/test", body()));
    expect(response.status).toBe(200);
    const result = (await response.json()) as A2ATestResult;
    expect(result.card).toMatchObject({ name: "Fixture agent", version: "2.1.0", protocolVersion: "1.0" });
    expect(result.card.skills.map((s) => s.id)).toEqual(["echo", "ask.human"]);
    expect(result.tools).toEqual([
      { skillId: "echo", toolName: "fx_echo", title: "Echo", description: "Echoes the message back", typed: false },
      {
        skillId: "ask.human",
        toolName: "fx_ask_human",
        title: "Ask a human",
        description: "Waits for a person before it answers",
        typed: false,
      },
    ]);
    expect(result.warnings).toEqual(['Skill "ask.human" is registered as "fx_ask_human"']);
    expect(services.registry.count()).toBe(tools);
  });

  it("POST /api/sources/a2a imports one tool per skill taking {message}, whose calls reach the agent with the token", async () => {
    const response = await consoleApi(services).sources.importA2AAgent(send("/api/sources/a2a", body()));
    expect(response.status).toBe(201);
    const answer = (await response.json()) as SourceImportAnswer;
    sourceId = answer.source.id;
    expect(answer.source).toMatchObject({
      kind: "a2a",
      name: "Fixture agent",
      location: agent.base,
      auth: { kind: "bearer" },
      hasSecret: true,
    });
    expect(answer.source.options).toMatchObject({ prefix: "fx_", card: { name: "Fixture agent", version: "2.1.0" } });
    expect(answer.tools.map((t) => t.name).sort()).toEqual(["fx_ask_human", "fx_echo"]);
    expect(JSON.stringify(answer)).not.toContain("a2a-secret-token");
    const list = await consoleApi(services).sources.list(
      new Request("http://127.0.0.1:3000/api/sources", { headers: { host: "127.0.0.1:3000" } }),
    );
    expect(await list.text()).not.toContain("a2a-secret-token");
    expect(services.registry.get("fx_echo")).toMatchObject({
      kind: "a2a",
      inputSchema: { required: ["message"] },
      policy: { tags: ["a2a"] },
    });

    agent.seen.length = 0;
    expect(valueOf(await services.executor.call("fx_echo", { message: "hello there" }))).toBe("echo: hello there");
    expect(agent.seen.map((s) => s.path)).toEqual(["/rpc"]);
    expect(agent.seen[0]!.authorization).toBe("Bearer a2a-secret-token");
  });

  it("an answer with files is MCP content blocks: the image as itself, a link, other bytes as a resource", async () => {
    expect(valueOf(await services.executor.call("fx_echo", { message: "picture" }))).toEqual({
      content: [
        { type: "text", text: "Here is a dot" },
        { type: "image", data: PICTURE_PNG, mimeType: "image/png" },
        { type: "resource_link", uri: "https://example.com/dot.png", name: "dot.png", mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "a2a-part:dot.pdf", mimeType: "application/pdf", blob: Buffer.from("%PDF-1.4").toString("base64") },
        },
      ],
    });
  });

  it("a remote input-required is a ToolError and approves nothing; the same call made again resumes the task", async () => {
    const error = failureOf(await services.executor.call("fx_ask_human", { message: "wait for colour" }));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toContain("The remote agent needs more input before it goes on: Which colour?");
    expect(error.message).toContain("Nothing was approved here");
    expect(countRows(services.database, "approvals")).toBe(0);
    // Called again with the same arguments: the waiting task is resumed rather than a new one started.
    expect(valueOf(await services.executor.call("fx_ask_human", { message: "wait for colour" }))).toBe("resumed: wait for colour");
    // Once finished, the next call is a new task again.
    expect(failureOf(await services.executor.call("fx_ask_human", { message: "wait for colour" })).kind).toBe("tool_error");
  });

  it("a task left waiting by one principal is resumed by that principal's call only, never by another's identical call", async () => {
    const as = (principal: string) => ({ ctx: { principal } });
    const args = { message: "wait for colour" };
    expect(failureOf(await services.executor.call("fx_ask_human", args, as("token:alice"))).kind).toBe("tool_error");
    // Bob's identical call starts a task of its own (waiting too) instead of taking Alice's.
    const bobs = failureOf(await services.executor.call("fx_ask_human", args, as("token:bob")));
    expect(bobs.message).toContain("Which colour?");
    expect(valueOf(await services.executor.call("fx_ask_human", args, as("token:alice")))).toBe("resumed: wait for colour");
    expect(valueOf(await services.executor.call("fx_ask_human", args, as("token:bob")))).toBe("resumed: wait for colour");
  });

  it("an agent that echoes the token in an error never gets it into the tool error", async () => {
    agent.breakRpc(true);
    try {
      const error = failureOf(await services.executor.call("fx_echo", { message: "hello" }));
      expect(error.kind).toBe("tool_error");
      expect(error.message).toContain("cannot serve [secret] today");
      expect(JSON.stringify(error)).not.toContain("a2a-secret-token");
    } finally {
      agent.breakRpc(false);
    }
  });

  it("a second import with the same names is refused whole (409) and leaves no second source", async () => {
    const before = (await services.sources.list()).length;
    const response = await consoleApi(services).sources.importA2AAgent(send("/api/sources/a2a", body()));
    expect(await errorOf(response)).toMatchObject({ status: 409, code: "duplicate_tool" });
    expect((await services.sources.list()).length).toBe(before);
  });

  it("a failed remote task is a ToolError with the agent's reason", async () => {
    const error = failureOf(await services.executor.call("fx_echo", { message: "fail now" }));
    expect(error).toMatchObject({ kind: "tool_error", message: "The remote agent reports that the task failed: It broke" });
  });

  it("the tools work after a restart, from the card kept on the source", async () => {
    const again = testServices({ OUTBOUND_ALLOW: "127.0.0.1/32", CONSOLE_DB: services.config.CONSOLE_DB });
    try {
      expect(valueOf(await again.executor.call("fx_echo", { message: "after restart" }))).toBe("echo: after restart");
    } finally {
      again.close();
    }
  });

  it("refresh reads the card again: new skills become tools, gone ones go, operators' settings stay", async () => {
    await services.registry.update("fx_echo", { enabled: false, timeoutMs: 5_000 });
    agent.setSkills([
      { id: "echo", name: "Echo", description: "Echoes the message back" },
      { id: "shout", name: "Shout", description: "Echoes loudly" },
    ]);
    const response = await consoleApi(services).sources.refresh(
      new Request(`http://127.0.0.1:3000/api/sources/${sourceId}/refresh`, { method: "POST", headers: { host: "127.0.0.1:3000" } }),
      { params: Promise.resolve({ id: sourceId }) },
    );
    expect(response.status).toBe(200);
    const answer = (await response.json()) as SourceImportAnswer;
    expect(answer.tools.map((t) => t.name)).toEqual(["fx_echo", "fx_shout"]);
    expect(services.registry.get("fx_ask_human")).toBeUndefined();
    expect(services.registry.get("fx_echo")).toMatchObject({ enabled: false, policy: { timeoutMs: 5_000 } });
    expect((await services.sources.get(sourceId))!.options).toMatchObject({ card: { skills: [{ id: "echo" }, { id: "shout" }] } });
  });

  it("remove takes the source and its tools", async () => {
    const response = await consoleApi(services).sources.remove(
      new Request(`http://127.0.0.1:3000/api/sources/${sourceId}`, { method: "DELETE", headers: { host: "127.0.0.1:3000" } }),
      { params: Promise.resolve({ id: sourceId }) },
    );
    expect(await response.json()).toEqual({ removed: sourceId, tools: 2 });
    expect(services.registry.get("fx_echo")).toBeUndefined();
    expect(await services.sources.get(sourceId)).toBeUndefined();
  });
});

describe("importing an A2A agent: what is refused", () => {
  it("refuses a loopback agent without OUTBOUND_ALLOW or an admin's allowance, and leaves nothing", async () => {
    const before = (await strict.sources.list()).length;
    const response = await consoleApi(strict).sources.importA2AAgent(send("/api/sources/a2a", { url: agent.base }));
    expect(await errorOf(response)).toMatchObject({ status: 422, code: "server_unreachable" });
    expect((await strict.sources.list()).length).toBe(before);
  });

  it("takes an admin's per-source allowance (the local operator of a loopback console is one) and keeps it for the calls", async () => {
    const response = await consoleApi(strict).sources.importA2AAgent(
      send("/api/sources/a2a", { url: agent.base, options: { allow: ["127.0.0.1/32"] } }),
    );
    expect(response.status).toBe(201);
    const answer = (await response.json()) as SourceImportAnswer;
    expect(answer.source.options).toMatchObject({ allow: ["127.0.0.1/32"] });
    expect(valueOf(await strict.executor.call("echo", { message: "allowed" }))).toBe("echo: allowed");
    await consoleApi(strict).sources.remove(
      new Request(`http://127.0.0.1:3000/api/sources/${answer.source.id}`, { method: "DELETE", headers: { host: "127.0.0.1:3000" } }),
      { params: Promise.resolve({ id: answer.source.id }) },
    );
  });

  it("refuses a URL that is not http(s), or carries credentials, with a clear 422", async () => {
    for (const url of ["ftp://127.0.0.1/", "http://user:pw@127.0.0.1:1/", "not a url"]) {
      const response = await consoleApi(services).sources.importA2AAgent(send("/api/sources/a2a", { url }));
      expect(await errorOf(response)).toMatchObject({ status: 422, code: "invalid_options" });
    }
  });

  it("refuses a card larger than the cap", async () => {
    agent.padCard(2 * 1024 * 1024);
    try {
      const response = await consoleApi(services).sources.testA2A(send("/api/sources/a2a/test", { url: agent.base }));
      const error = await errorOf(response);
      expect(error).toMatchObject({ status: 422, code: "server_unreachable" });
      expect(error.message).toContain("answered more than 1048576 bytes");
    } finally {
      agent.padCard(0);
    }
  });

  it("sends the credential only to the agent's origin, not to an interface the card puts elsewhere", async () => {
    const other = await startFixtureAgent();
    // The card of `elsewhere` names `other`'s endpoint (another port: another origin).
    const elsewhere = await startFixtureAgent({ interfaceUrl: `${other.base}/rpc` });
    try {
      const response = await consoleApi(services).sources.importA2AAgent(
        send("/api/sources/a2a", { url: elsewhere.base, bearer: "only-for-elsewhere", options: { prefix: "far_" } }),
      );
      expect(response.status).toBe(201);
      expect(valueOf(await services.executor.call("far_echo", { message: "hi" }))).toBe("echo: hi");
      expect(elsewhere.seen.every((s) => s.authorization === "Bearer only-for-elsewhere")).toBe(true);
      expect(other.seen.map((s) => s.path)).toEqual(["/rpc"]);
      expect(other.seen[0]!.authorization).toBeNull();
    } finally {
      await other.close();
      await elsewhere.close();
    }
  });
});

describe("the time limit of an A2A tool", () => {
  it("ends a call the agent does not finish in time as a timeout", async () => {
    const slow = await startFixtureAgent({ slowMs: 3_000 });
    try {
      await importA2AOver(services, { url: slow.base, options: { prefix: "slow_", timeoutMs: 300 } });
      const started = Date.now();
      const outcome = await services.executor.call("slow_echo", { message: "slow please" });
      expect(failureOf(outcome).kind).toBe("timeout");
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      await slow.close();
    }
  });
});

async function importA2AOver(target: SqliteServices, body: Record<string, unknown>): Promise<SourceImportAnswer> {
  const response = await consoleApi(target).sources.importA2AAgent(send("/api/sources/a2a", body));
  expect(response.status).toBe(201);
  return (await response.json()) as SourceImportAnswer;
}

describe("importing an A2A 0.3 agent (SDK 0.3.14) through the compatibility layer", () => {
  it("reads its card and calls its skill", async () => {
    const legacy = await startFixtureAgent({ version: "0.3" });
    try {
      const response = await consoleApi(services).sources.importA2AAgent(
        send("/api/sources/a2a", { url: legacy.base, options: { prefix: "old_" } }),
      );
      expect(response.status).toBe(201);
      const answer = (await response.json()) as SourceImportAnswer;
      expect(answer.source.options).toMatchObject({ card: { name: "Fixture agent", protocolVersion: "0.3.0" } });
      expect(valueOf(await services.executor.call("old_echo", { message: "from 1.0" }))).toBe("echo (0.3): from 1.0");
    } finally {
      await legacy.close();
    }
  });
});
