import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllowance, refuseAddress, refuseUrl } from "@/lib/net/address-policy";
import { AddressNotAllowed, OutboundGuard, type Resolve } from "@/lib/net/outbound-guard";

// Only loopback is ever connected to here; other ranges are checked by classification alone.
let server: http.Server;
let port = 0;
const hits: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/to-other-loopback") return res.writeHead(302, { location: `http://127.0.0.2:${port}/secret` }).end();
    if (req.url === "/to-relative") return res.writeHead(301, { location: "/ok" }).end();
    res.writeHead(200, { "content-type": "text/plain" }).end(`hello ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

/** A resolver answering from a table (each name's answers in turn), never the network. */
function fakeResolver(table: Record<string, string[][]>): Resolve {
  const asked = new Map<string, number>();
  return (hostname, _options, callback) => {
    const answers = table[hostname];
    if (!answers) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
    const n = asked.get(hostname) ?? 0;
    asked.set(hostname, n + 1);
    const addresses = answers[Math.min(n, answers.length - 1)]!;
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  };
}

describe("address classification (no connection)", () => {
  it.each([
    "127.0.0.1",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "[::ffff:7f00:1]",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "::ffff:a9fe:a9fe",
    "fe80::1",
    "fd12::1",
    "100.64.0.1",
    "0.0.0.0",
    "::",
    "198.18.0.1",
    "198.19.255.255",
    "192.0.2.1",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    "64:ff9b::a9fe:a9fe",
    "2002:a9fe:a9fe::",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "::7f00:1",
    "1::1",
    "4000::1",
    "2001:db8::1",
  ])("refuses %s, saying how to allow it", (address) => {
    expect(refuseAddress(address)).toMatch(/ \(reached only when OUTBOUND_ALLOW or the source's allow list names it\)$/);
  });

  it("allows global unicast, and what the operator lists", () => {
    expect(refuseAddress("8.8.8.8")).toBeUndefined();
    expect(refuseAddress("2606:4700::1")).toBeUndefined();
    const allow = parseAllowance(["127.0.0.0/8", "10.1.2.0/24", "fd00::/8"]);
    expect(refuseAddress("127.0.0.9", allow)).toBeUndefined();
    expect(refuseAddress("::ffff:127.0.0.9", allow)).toBeUndefined();
    expect(refuseAddress("10.1.2.200", allow)).toBeUndefined();
    expect(refuseAddress("10.1.3.1", allow)).toMatch(/private/);
    expect(refuseAddress("fd12::1", allow)).toBeUndefined();
    expect(refuseAddress("::1", allow)).toMatch(/loopback/);
  });

  it("new URL's spellings of loopback are all refused before any request", () => {
    for (const raw of [
      "http://[::ffff:127.0.0.1]/",
      "http://0x7f.1/",
      "http://2130706433/",
      "http://127.1/",
      "http://[::1]:80/",
      "http://0/",
    ]) {
      expect(refuseUrl(new URL(raw)), raw).toEqual(expect.any(String));
    }
    expect(refuseUrl(new URL("ftp://example.com/"))).toMatch(/http and https only/);
    expect(refuseUrl(new URL("https://user:pw@example.com/"))).toMatch(/credentials/);
    expect(refuseUrl(new URL("https://example.com/"))).toBeUndefined();
  });

  it("an allowance names what is wrong in it", () => {
    expect(parseAllowance(["127.0.0.0/8", " api.internal ", "::1", ""]).hosts).toEqual(new Set(["api.internal"]));
    expect(() => parseAllowance(["10.0.0.0/33"])).toThrow(/10.0.0.0\/33/);
    expect(() => parseAllowance(["http://x"])).toThrow(/http:\/\/x/);
  });
});

describe("the guard at connect time (loopback servers only)", () => {
  it("refuses a loopback server in every spelling unless the operator allows it", async () => {
    const guard = new OutboundGuard();
    for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]"]) {
      await expect(guard.fetch(`http://${host}:${port}/a`)).rejects.toBeInstanceOf(AddressNotAllowed);
    }
    expect(hits).toEqual([]);
    const allowed = new OutboundGuard(parseAllowance(["127.0.0.0/8"]));
    expect(await (await allowed.fetch(`http://127.0.0.1:${port}/a`)).text()).toBe("hello /a");
    expect(await (await allowed.fetch(`http://[::ffff:127.0.0.1]:${port}/b`)).text()).toBe("hello /b");
    await Promise.all([guard.close(), allowed.close()]);
  });

  it("resolves a name once, at connect time: a DNS answer that changes after a check does not get through", async () => {
    // First answer public (the early check passes), second answer loopback (the connection).
    const guard = new OutboundGuard(undefined, { resolve: fakeResolver({ "rebind.test": [["93.184.216.34"], ["127.0.0.1"]] }) });
    expect(await guard.check(`http://rebind.test:${port}/`)).toBeUndefined();
    const before = hits.length;
    await expect(guard.fetch(`http://rebind.test:${port}/secret`)).rejects.toThrow(
      /rebind\.test resolves to 127\.0\.0\.1: 127\.0\.0\.1 is a loopback address/,
    );
    expect(hits.length).toBe(before);
    await guard.close();
  });

  it("a name with any refused address is refused; a name the operator lists is trusted", async () => {
    const resolve = fakeResolver({ "mixed.test": [["93.184.216.34", "127.0.0.1"]], "internal.test": [["127.0.0.1"]] });
    const guard = new OutboundGuard(parseAllowance(["internal.test"]), { resolve });
    await expect(guard.fetch(`http://mixed.test:${port}/`)).rejects.toBeInstanceOf(AddressNotAllowed);
    expect(await guard.check(`http://mixed.test:${port}/`)).toMatch(/mixed\.test resolves to 127\.0\.0\.1/);
    expect(await (await guard.fetch(`http://internal.test:${port}/in`)).text()).toBe("hello /in");
    expect(await guard.check("http://nowhere.test/")).toBe("nowhere.test does not resolve");
    expect(await guard.check("http://nowhere.test/", true)).toBeUndefined();
    await guard.close();
  });

  it("checks every redirect hop, and returns a redirect it may not follow", async () => {
    const guard = new OutboundGuard(parseAllowance(["127.0.0.1/32"]));
    await expect(guard.fetch(`http://127.0.0.1:${port}/to-other-loopback`, {}, { maxRedirects: 5 })).rejects.toThrow(/127\.0\.0\.2/);
    expect(hits).not.toContain("/secret");
    expect(await (await guard.fetch(`http://127.0.0.1:${port}/to-relative`, {}, { maxRedirects: 5 })).text()).toBe("hello /ok");
    expect((await guard.fetch(`http://127.0.0.1:${port}/to-relative`)).status).toBe(301);
    await guard.close();
  });
});
