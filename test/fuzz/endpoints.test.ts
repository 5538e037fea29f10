import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "./endpoints";
import { loadRouteExports } from "./route-files";

// The fuzz drives the endpoints listed in test/fuzz/endpoints.ts. A route added under app/api
// without an entry there would never be fuzzed, so this test names it instead.
describe("the fuzz suite's endpoint table", () => {
  it("lists every method every route file under app/api exports, and nothing else", async () => {
    const exported = (await loadRouteExports()).map((r) => r.key).sort();
    const listed = Object.keys(ENDPOINTS).sort();
    const missing = exported.filter((key) => !listed.includes(key));
    const stale = listed.filter((key) => !exported.includes(key));
    expect({ missing, stale }, "add the missing ones to ENDPOINTS in test/fuzz/endpoints.ts; remove the stale ones").toEqual({
      missing: [],
      stale: [],
    });
  });
});
