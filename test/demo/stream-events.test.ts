import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { streamEvents, type StreamedEvent } from "@/lib/demo/model-server/script";

// The scripted model server streams an answer as a model server does: it makes the next event only
// when the socket has taken the one before, so a client that reads slowly (or not at all) never
// makes it hold the rest of a long answer in memory, and a client that leaves stops it.

const EVENTS = 100_000;
const PAYLOAD = "x".repeat(1000);

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server streaming EVENTS events of about 1 KB; `made` counts the events made so far. */
async function streaming(): Promise<{ port: number; made: () => number; ended: Promise<void> }> {
  let made = 0;
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  function* events(): Generator<StreamedEvent> {
    for (let at = 0; at < EVENTS; at++) {
      made++;
      yield { data: { at, payload: PAYLOAD } };
    }
  }
  server = http.createServer((_req, res) => void streamEvents(res, events()).finally(end));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, made: () => made, ended };
}

function get(port: number): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => http.get({ host: "127.0.0.1", port }, resolve).on("error", reject));
}

describe("streamEvents", () => {
  it("makes events only as fast as the client reads them, and sends them all", async () => {
    const { port, made } = await streaming();
    const answer = await get(port);
    answer.pause();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // What the socket buffers hold at most (a few MB on loopback), far from the 100 MB answer.
    expect(made()).toBeLessThan(EVENTS / 5);
    answer.resume();
    // Frames end with a blank line; a chunk of the answer may end between its two line feeds.
    let frames = 0;
    let carried = "";
    answer.setEncoding("utf8");
    for await (const text of answer as AsyncIterable<string>) {
      const seen = carried + text;
      frames += seen.split("\n\n").length - 1;
      carried = seen.endsWith("\n") && !seen.endsWith("\n\n") ? "\n" : "";
    }
    expect(frames).toBe(EVENTS);
    expect(answer.headers["content-type"]).toBe("text/event-stream");
  });

  it("stops making events when the client goes away", async () => {
    const { port, made, ended } = await streaming();
    const answer = await get(port);
    answer.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer.destroy();
    await ended;
    expect(made()).toBeLessThan(EVENTS / 5);
  });
});
