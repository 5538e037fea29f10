import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import { attachmentDisposition } from "@/lib/http/content-disposition";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { Services } from "@/lib/services";
import { testServices } from "../support/services";

/** Every hostile thing a run id can hold: a quote, CR/LF with a header after it, `;`, `%`, a backslash, non-Latin-1, an emoji, a lone surrogate. */
const NASTY_ID = 'run "x"\r\nSet-Cookie: stolen=1; a\\b%41;日本🎉\uD800';

describe("attachmentDisposition (RFC 6266 with the RFC 8187 filename*)", () => {
  it("a plain name is the same in both parameters", () => {
    expect(attachmentDisposition("run-abc_1.2.jsonl")).toBe(`attachment; filename="run-abc_1.2.jsonl"; filename*=UTF-8''run-abc_1.2.jsonl`);
  });

  it("quotes, CR/LF, separators and non-ASCII become _ in filename and percent-encoded UTF-8 in filename*", () => {
    expect(attachmentDisposition(`run-${NASTY_ID}.jsonl`)).toBe(
      `attachment; filename="run-run__x___Set-Cookie__stolen_1__a_b_41_____.jsonl"; ` +
        `filename*=UTF-8''run-run%20%22x%22%0D%0ASet-Cookie%3A%20stolen%3D1%3B%20a%5Cb%2541%3B%E6%97%A5%E6%9C%AC%F0%9F%8E%89%EF%BF%BD.jsonl`,
    );
  });

  it("the header value is always one line of visible ASCII that Headers accepts", () => {
    const samples = [NASTY_ID, "", "'()*", "\u0000\u007f\u0085\u2028", "é".repeat(5000), "\uDFFF\uD800"];
    for (const sample of samples) {
      const value = attachmentDisposition(`run-${sample}.jsonl`);
      expect(value).toMatch(/^[\x20-\x7e]+$/);
      expect(() => new Headers({ "content-disposition": value })).not.toThrow();
      expect(value.length).toBeLessThan(2000);
      // The quoted filename holds no quote or backslash that would end or escape it early.
      expect(/filename="([^"]*)";/.exec(value)?.[1]).toMatch(/^[A-Za-z0-9._-]*$/);
    }
  });

  it("filename* decodes back to the name (lone surrogates as U+FFFD)", () => {
    const value = attachmentDisposition("run-日本 'quoted' (x)*.jsonl");
    expect(decodeURIComponent(/filename\*=UTF-8''(.*)$/.exec(value)![1]!)).toBe("run-日本 'quoted' (x)*.jsonl");
  });
});

describe("GET /api/runs/ID/events?format=jsonl with a hostile run id", () => {
  let services: Services;
  beforeAll(async () => {
    services = testServices();
    await services.runs.start({ runId: NASTY_ID, threadId: "thread-nasty", agent: "demo", principal: "local" });
  });
  afterAll(() => services.close());

  const expected =
    `attachment; filename="run-run__x___Set-Cookie__stolen_1__a_b_41_____.jsonl"; ` +
    `filename*=UTF-8''run-run%20%22x%22%0D%0ASet-Cookie%3A%20stolen%3D1%3B%20a%5Cb%2541%3B%E6%97%A5%E6%9C%AC%F0%9F%8E%89%EF%BF%BD.jsonl`;

  it("answers 200 with a safe Content-Disposition (in process)", async () => {
    const response = await consoleApi(services).threads.runEvents(
      new Request("http://127.0.0.1:3000/api/runs/x/events?format=jsonl", { headers: { host: "127.0.0.1:3000" } }),
      { params: Promise.resolve({ id: NASTY_ID }) },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(expected);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("answers 200 over a real socket, with no injected header", async () => {
    const server = createNodeServer([
      { method: "GET", path: "/api/runs/[id]/events", handler: consoleApi(services).threads.runEvents as WebHandler },
    ]);
    const base = await listenLocal(server);
    try {
      const response = await fetch(`${base}/api/runs/${encodeURIComponent(NASTY_ID.replace("\uD800", ""))}/events?format=jsonl`);
      expect(response.status).toBe(404); // the id without its lone surrogate is another id
      await services.runs.start({ runId: NASTY_ID.replace("\uD800", ""), threadId: "thread-nasty", agent: "demo", principal: "local" });
      const found = await fetch(`${base}/api/runs/${encodeURIComponent(NASTY_ID.replace("\uD800", ""))}/events?format=jsonl`);
      expect(found.status).toBe(200);
      expect(found.headers.get("content-disposition")).toBe(expected.replace("%EF%BF%BD", "").replace("_____.jsonl", "____.jsonl"));
      expect(found.headers.get("set-cookie")).toBeNull();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
