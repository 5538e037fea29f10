import { describe, expect, it } from "vitest";
import { pageAccess } from "@/lib/auth/page-access";
import { signInPath, signInTarget } from "@/lib/auth/sign-in-path";

const local = { bindHost: "127.0.0.1", allowedHosts: [] };
const everywhere = { bindHost: "0.0.0.0", allowedHosts: ["console.example"] };

describe("page access", () => {
  it("serves local Host names on a loopback bind without sign-in", () => {
    for (const host of ["127.0.0.1:3000", "localhost:3000", "[::1]:3000", "localhost"])
      expect(pageAccess("/approvals", host, false, local)).toEqual({ verdict: "serve" });
  });

  it("refuses other Host names (DNS rebinding) with 421, unless allowed", () => {
    expect(pageAccess("/", "evil.example", false, local)).toMatchObject({ verdict: "refuse", status: 421 });
    expect(pageAccess("/", null, true, local)).toMatchObject({ verdict: "refuse", status: 421 });
    expect(pageAccess("/sign-in", "evil.example", false, local)).toMatchObject({ verdict: "refuse", status: 421 });
  });

  it("sends people without a session to sign in when the console is reached off loopback", () => {
    // An allowed name on a loopback console (a reverse proxy in front) is not the local operator.
    expect(pageAccess("/approvals", "console.internal", false, { ...local, allowedHosts: ["console.internal"] })).toEqual({
      verdict: "sign-in",
    });
    // Listening on every address: even a local name needs a session, since the peer may be anyone.
    expect(pageAccess("/", "localhost:3000", false, everywhere)).toEqual({ verdict: "sign-in" });
    expect(pageAccess("/runs", "console.example", false, everywhere)).toEqual({ verdict: "sign-in" });
  });

  it("lets a request with a session cookie reach the page, which checks the session itself", () => {
    expect(pageAccess("/runs", "console.example", true, everywhere)).toEqual({ verdict: "serve" });
  });

  it("serves the sign-in page to anyone whose Host is served", () => {
    expect(pageAccess("/sign-in", "console.example", false, everywhere)).toEqual({ verdict: "serve" });
  });
});

describe("where sign-in leads", () => {
  it("goes back to a path of this console, never to another site", () => {
    expect(signInTarget("/approvals?approval=apr_1")).toBe("/approvals?approval=apr_1");
    for (const elsewhere of [
      "//evil.example/x",
      "/\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "",
      undefined,
      ["/a", "/b"],
    ])
      expect(signInTarget(elsewhere)).toBe("/");
  });

  it("a page that finds the session ended sends its reader to sign in and back to it", () => {
    expect(signInPath("/settings?token_scope=mcp")).toBe("/sign-in?next=%2Fsettings%3Ftoken_scope%3Dmcp");
    for (const nowhere of ["/", "//evil.example/x", null, undefined]) expect(signInPath(nowhere)).toBe("/sign-in");
  });
});
