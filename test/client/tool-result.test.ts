import { describe, expect, it } from "vitest";
import { readToolResult } from "@/lib/client/tool-result";

const failure = (kind: string) => JSON.stringify({ ok: false, error: { kind, message: `a ${kind}` } });

describe("reading a tool result", () => {
  it("tells each way a call can end apart", () => {
    expect(readToolResult(JSON.stringify({ ok: true, value: 42 }))).toEqual({ status: "succeeded", result: 42 });
    expect(readToolResult(failure("denied")).status).toBe("denied");
    expect(readToolResult(failure("approval_expired")).status).toBe("cancelled");
    expect(readToolResult(failure("timeout")).status).toBe("failed");
  });

  it("shows a call cut by a crash as of unknown outcome, not as failed or denied", () => {
    expect(readToolResult(failure("outcome_unknown"))).toEqual({
      status: "unknown",
      error: { kind: "outcome_unknown", message: "a outcome_unknown" },
    });
  });
});
