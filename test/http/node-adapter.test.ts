import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeServer, listenLocal } from "@/lib/http/node-adapter";

/** Each request's signal as its handler saw it, by path. */
const seen = new Map<string, AbortSignal>();
let heard: () => void;
const aborted = new Promise<void>((resolve) => (heard = resolve));

const server = createNodeServer([
  {
    method: "POST",
    path: "/echo",
    handler: async (request) => {
      seen.set("/echo", request.signal);
      return new Response(await request.text());
    },
  },
  {
    method: "GET",
    path: "/forever",
    handler: async (request) => {
      seen.set("/forever", request.signal);
      request.signal.addEventListener("abort", () => heard(), { once: true });
      // A stream that never ends: only the client going away stops it.
      return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode("open\n")) }));
    },
  },
]);
const base = listenLocal(server);
afterAll(() => server.close());

describe("the node adapter", () => {
  it("hands the handler a Request with the body, and a signal that stays quiet when the answer is sent", async () => {
    const response = await fetch(`${await base}/echo`, { method: "POST", body: "héllo" });
    expect(await response.text()).toBe("héllo");
    expect(seen.get("/echo")!.aborted).toBe(false);
  });

  it("aborts the Request's signal when the client goes away before the answer ends", async () => {
    const url = new URL(`${await base}/forever`);
    await new Promise<void>((resolve, reject) => {
      const req = http.get(url, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", () => {});
      req.setTimeout(5_000, () => reject(new Error("no first chunk")));
    });
    await aborted;
    const signal = seen.get("/forever")!;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ message: "client disconnected" });
  });
});
