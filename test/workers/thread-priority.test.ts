// Background worker threads run at a lower scheduling priority than the thread serving requests
// (lib/workers/thread-priority.ts). Linux gives each thread an id and a niceness of its own, read
// here from /proc/self/task/<id>/stat (field 19).
import fs from "node:fs";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { generatedDocument } from "@/bench/support/generated-openapi";
import { prepareInWorker } from "@/lib/integrations/openapi/prepare-in-worker";
import { BACKGROUND_NICENESS } from "@/lib/workers/thread-priority";

/** The niceness of each thread of this process, by thread id. */
function niceness(): Map<number, number> {
  const found = new Map<number, number>();
  for (const tid of fs.readdirSync("/proc/self/task")) {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    found.set(Number(tid), Number(fields[16]));
  }
  return found;
}

describe.runIf(os.platform() === "linux")("background threads give way", () => {
  it("the OpenAPI preparation worker runs at the background niceness, this thread at its own", async () => {
    const before = niceness();
    await prepareInWorker({ document: generatedDocument(1), location: "pasted" }, {}, false);
    const after = niceness();
    const started = [...after].filter(([tid]) => !before.has(tid));
    expect(started.map(([, nice]) => nice)).toContain(BACKGROUND_NICENESS);
    expect(after.get(process.pid)).toBe(os.getPriority(process.pid));
    expect(os.getPriority(process.pid)).not.toBe(BACKGROUND_NICENESS);
  });
});
