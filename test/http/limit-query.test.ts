import { afterAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import type { Handler } from "@/lib/http/handler";
import { testServices } from "../support/services";

const services = testServices();
afterAll(() => services.close());
const api = consoleApi(services);

/** Every list that takes `limit`, with its largest page. */
const LISTS: Array<{ name: string; path: string; handler: Handler; params?: Record<string, string>; max: number }> = [
  { name: "threads", path: "/api/threads", handler: api.threads.listThreads, max: 200 },
  { name: "approvals", path: "/api/approvals", handler: api.approvals.list, max: 500 },
  { name: "tools", path: "/api/tools", handler: api.tools.list, max: 1000 },
  { name: "tool calls", path: "/api/tools/get_weather/calls", handler: api.toolCalls.list, params: { name: "get_weather" }, max: 200 },
];

function get(list: (typeof LISTS)[number], query: string): Promise<Response> {
  const request = new Request(`http://127.0.0.1:3000${list.path}${query}`, { headers: { host: "127.0.0.1:3000" } });
  return list.handler(request, { params: Promise.resolve(list.params ?? {}) });
}

describe.each(LISTS)("GET $path: limit is a whole number in range, or 400", (list) => {
  it.each(["-5", "abc", "0", "1.5", "0x10", "1e2", " 7", "7 ", "", "+3", "Infinity", String(list.max + 1), "99999999999999999999"])(
    "limit=%j is refused with invalid_query naming the range",
    async (limit) => {
      const response = await get(list, `?limit=${encodeURIComponent(limit)}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          code: "invalid_query",
          message: expect.any(String),
          issues: [{ path: "/limit", message: `must be a whole number from 1 to ${list.max}` }],
        },
      });
    },
  );

  it.each(["1", "2", "007", String(list.max)])("limit=%s is taken", async (limit) => {
    expect((await get(list, `?limit=${limit}`)).status).toBe(200);
  });

  it("no limit is taken (the list's default page)", async () => {
    expect((await get(list, "")).status).toBe(200);
  });
});
