// WAL checkpoints on a worker thread (lib/db/wal-checkpointer.ts): a database that writes little
// never starts one; one that writes megabytes, in large commits or small ones, gets its log copied
// back by the worker, so the log starts over from its beginning although the serving connection's
// own checkpoint waits for 16,000 pages; and a log a burst grew past its size limit is cut back
// when it starts over.
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db";
import { WAL_SIZE_LIMIT_BYTES } from "@/lib/db/connection";
import { BACKSTOP_AUTOCHECKPOINT_PAGES, WalCheckpointer } from "@/lib/db/wal-checkpointer";
import { tempDir } from "../support/services";

const open: DatabaseHandle[] = [];
afterEach(() => {
  for (const handle of open.splice(0)) handle.close();
});

function database(): DatabaseHandle {
  const handle = openDatabase(path.join(tempDir(), "console.db"));
  open.push(handle);
  handle.sqlite.exec("create table blobs (id integer primary key, body text not null)");
  return handle;
}

/** `megabytes` of rows, one commit per 256 KB, a turn of the event loop between commits. */
async function write(handle: DatabaseHandle, megabytes: number): Promise<void> {
  const insert = handle.sqlite.prepare("insert into blobs (body) values (?)");
  const body = "x".repeat(256 * 1024);
  for (let i = 0; i < megabytes * 4; i++) {
    insert.run(body);
    await sleep(2);
  }
}

const walBytes = (handle: DatabaseHandle) => fs.statSync(`${handle.path}-wal`).size;

/** The log header's checkpoint sequence number (bytes 12-15, big-endian): it goes up each time the log starts over. */
function logSequence(handle: DatabaseHandle): number {
  const header = Buffer.alloc(16);
  const fd = fs.openSync(`${handle.path}-wal`, "r");
  try {
    fs.readSync(fd, header, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  return header.readUInt32BE(12);
}
const autocheckpoint = (handle: DatabaseHandle) => handle.sqlite.pragma("wal_autocheckpoint", { simple: true });

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(50);
  }
}

describe("WAL checkpoints on a worker thread", () => {
  it("start once the log passes the threshold, and keep it from growing with the writes", async () => {
    const handle = database();
    const checkpointer = new WalCheckpointer(handle.sqlite, handle.path, { intervalMs: 50, startAtBytes: 1024 * 1024 });
    try {
      expect(checkpointer.running).toBe(false);
      await write(handle, 2);
      await until(() => checkpointer.running);
      expect(autocheckpoint(handle)).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);

      // Rounds of 6 MB: with no checkpoint but the backstop (16,000 pages, about 64 MB) the log
      // would hold all 24 MB; the worker copies each round back, and the next write then starts
      // the log over from its beginning (its header's checkpoint sequence number goes up).
      for (let round = 0; round < 4; round++) {
        await write(handle, 6);
        const before = logSequence(handle);
        await until(() => {
          handle.sqlite.prepare("insert into blobs (body) values ('probe')").run();
          return logSequence(handle) !== before;
        });
      }
      expect(walBytes(handle)).toBeLessThan(12 * 1024 * 1024);
      expect((handle.sqlite.prepare("select count(*) as n from blobs where body != 'probe'").get() as { n: number }).n).toBe(104);
    } finally {
      checkpointer.stop();
    }
    expect(checkpointer.running).toBe(false);
  });

  it("starts under steady small commits, whose log SQLite's own checkpoint keeps at about 1,000 pages", async () => {
    const handle = database();
    const checkpointer = new WalCheckpointer(handle.sqlite, handle.path, { intervalMs: 50 });
    try {
      // Commits of about two pages, 6 MB in all: the connection's checkpoint starts the log over
      // each time it reaches 1,000 pages, so the file never grows past about 4.13 MB.
      const insert = handle.sqlite.prepare("insert into blobs (body) values (?)");
      const body = "x".repeat(3000);
      for (let i = 0; i < 2000; i++) {
        insert.run(body);
        if (i % 50 === 49) await sleep(2);
      }
      // Below the 4 MiB the worker used to wait for: it never started here.
      expect(walBytes(handle)).toBeLessThan(4 * 1024 * 1024);
      await until(() => checkpointer.running, 3000);
      expect(autocheckpoint(handle)).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);
    } finally {
      checkpointer.stop();
    }
  });

  it("never starts for a database that writes little, whose connection keeps SQLite's own checkpoint", async () => {
    const handle = database();
    const checkpointer = new WalCheckpointer(handle.sqlite, handle.path, { intervalMs: 50 });
    try {
      await write(handle, 0.5);
      await sleep(1200);
      expect(checkpointer.running).toBe(false);
      expect(autocheckpoint(handle)).toBe(1000);
    } finally {
      checkpointer.stop();
    }
  });

  it("cuts a log a burst of writes grew back to the size limit once it starts over", () => {
    const handle = database();
    // No checkpoint until the burst is written: the log holds all of it. Written without a turn of
    // the event loop, so the checkpoint worker cannot start and copy the log back meanwhile.
    handle.sqlite.pragma("wal_autocheckpoint = 0");
    const insert = handle.sqlite.prepare("insert into blobs (body) values (?)");
    const body = "x".repeat(256 * 1024);
    const burst = (WAL_SIZE_LIMIT_BYTES / (1024 * 1024) + 4) * 4;
    for (let i = 0; i < burst; i++) insert.run(body);
    expect(walBytes(handle)).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
    handle.sqlite.pragma("wal_checkpoint(PASSIVE)");
    const before = logSequence(handle);
    handle.sqlite.prepare("insert into blobs (body) values ('probe')").run();
    expect(logSequence(handle)).not.toBe(before);
    expect(walBytes(handle)).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    expect((handle.sqlite.prepare("select count(*) as n from blobs").get() as { n: number }).n).toBe(burst + 1);
  });
});
