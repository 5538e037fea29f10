import { describe, expect, it } from "vitest";
import { pageAccess } from "@/lib/auth/page-access";

const local = { bindHost: "127.0.0.1", allowedHosts: [] };

describe("page access", () => {
  it("serves local Host names on a loopback bind", () => {
    for (const host of ["127.0.0.1:3000", "localhost:3000", "[::1]:3000", "localhost"])
      expect(pageAccess(host, local)).toEqual({ ok: true });
  });

  it("refuses other Host names (DNS rebinding) with 421, unless allowed", () => {
    expect(pageAccess("evil.example", local)).toMatchObject({ ok: false, status: 421 });
    expect(pageAccess(null, local)).toMatchObject({ ok: false, status: 421 });
    expect(pageAccess("console.internal:3000", { ...local, allowedHosts: ["console.internal"] })).toEqual({ ok: true });
  });

  it("refuses pages when the console listens beyond loopback: they have no sign-in", () => {
    const verdict = pageAccess("localhost:3000", { bindHost: "0.0.0.0", allowedHosts: [] });
    expect(verdict).toMatchObject({ ok: false, status: 403 });
    expect(!verdict.ok && verdict.message).toContain("HOST=0.0.0.0");
  });
});
