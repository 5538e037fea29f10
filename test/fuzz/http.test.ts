import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer, listenLocal, type NodeRoute } from "@/lib/http/node-adapter";
import { openFuzzServices, type FuzzServices } from "./in-process-pass";
import { fuzzIterations, fuzzSeed } from "./random";
import { rawExchange, runRawPass, type RawRequest } from "./raw-http";
import { loadRouteExports } from "./route-files";
import { WriteJournal } from "./write-journal";

// The real-HTTP fuzz pass over a socket on 127.0.0.1, against the console's route exports served
// by the node adapter (the built console behind scripts/server.mjs gets the same pass from
// e2e/fuzz.spec.ts and `npm run fuzz`). Every request that could change something carries a
// fault that must refuse it, so the pass also checks that nothing was written.

const seed = fuzzSeed();
const count = fuzzIterations(12) * 25;

let fuzz: FuzzServices;
let server: http.Server;
let target: { host: string; port: number };

beforeAll(async () => {
  fuzz = openFuzzServices();
  const routes: NodeRoute[] = (await loadRouteExports()).map((route) => ({
    method: route.method,
    path: route.path,
    handler: (request, context) => route.handler(request, context),
  }));
  server = createNodeServer(routes);
  const base = new URL(await listenLocal(server));
  target = { host: base.hostname, port: Number(base.port) };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fuzz.close();
});

// Found by the pass (seed 3564612605) in the node adapter: each closed the connection with no
// answer (a URIError or TypeError escaped the request listener) before the adapter checked them.
const FOUND: Array<{ request: RawRequest; status: number }> = [
  { request: { method: "GET", target: "/api/tools/%E0", headers: [["Host", "127.0.0.1"]] }, status: 400 },
  { request: { method: "GET", target: "/api/threads/%C0%AF", headers: [["Host", "127.0.0.1"]] }, status: 400 },
  { request: { method: "GET", target: "/api/health", headers: [["Host", "127.0.0.1:3000:1"]] }, status: 200 },
  { request: { method: "GET", target: "/api/tools", headers: [["Host", "[::1"]] }, status: 421 },
];

describe("the node adapter under raw requests the fuzz found", () => {
  it.each(FOUND.map((found) => [`${found.request.method} ${found.request.target} (Host ${found.request.headers[0]![1]})`, found] as const))(
    "%s is answered",
    async (_name, { request, status }) => {
      expect(await rawExchange(target.host, target.port, request, 5_000)).toMatchObject({ status });
    },
  );
});

describe(`the real-HTTP fuzz pass (FUZZ_SEED=${seed}, ${count} requests)`, () => {
  it("answers every raw request below 500, writes nothing for refused ones, and stays healthy", async () => {
    const journal = new WriteJournal(fuzz.services.database.sqlite);
    const mark = journal.mark();
    const result = await runRawPass(target, seed, count, { allowWrites: false });
    console.log(`raw fuzz: seed ${seed}, ${result.sent} requests, statuses ${JSON.stringify(result.statuses)}`);
    expect(result.findings, `replay with FUZZ_SEED=${seed}`).toEqual([]);
    await fuzz.services.runs.flush();
    expect(journal.writtenSince(mark), `replay with FUZZ_SEED=${seed}`).toEqual({});
    const health = await rawExchange(target.host, target.port, {
      method: "GET",
      target: "/api/health",
      headers: [["Host", `127.0.0.1:${target.port}`]],
    });
    expect(health.status).toBe(200);
  }, 120_000);
});
