import { describe, expect, it, vi } from "vitest";
import { DomainError, isDomainError } from "@/lib/errors";

describe("isDomainError", () => {
  it("knows a DomainError from another copy of the module (Next.js may bundle it twice)", async () => {
    vi.resetModules();
    // @ts-expect-error: the query makes vitest load a second copy of the module, which TypeScript cannot name
    const other = (await import("@/lib/errors/domain-error?copy")) as { DomainError: typeof DomainError };
    const error = new other.DomainError("token_not_found", "No such token");
    expect(error instanceof DomainError).toBe(false);
    expect(isDomainError(error)).toBe(true);
    expect(isDomainError(new Error("plain"))).toBe(false);
    expect(isDomainError({ kind: "forbidden", message: "a look-alike" })).toBe(false);
  });
});
