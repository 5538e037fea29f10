import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * Why a URL may not be used, or undefined when it may. A name that does not resolve is refused
 * unless `allowUnresolved` (an API imported while offline): its calls are checked again then.
 */
export async function refuseUrl(raw: string, allowPrivate: boolean, allowUnresolved = false): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not an absolute URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `${url.protocol} URLs are not allowed (http and https only)`;
  if (url.username || url.password) return "URLs with credentials in them are not allowed; use the source's auth";
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return `${host} is a loopback address (allow private addresses to use it)`;
  // A name could resolve to an internal address (cloud metadata, the console itself): check what it resolves to.
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return allowUnresolved ? undefined : `${host} does not resolve`;
    }
  }
  const internal = addresses.find(isPrivateAddress);
  return internal ? `${host} is a private or loopback address (${internal}); allow private addresses to use it` : undefined;
}

/** True for loopback, private, link-local, unspecified and unique-local addresses (IPv4 and IPv6). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address;
  if (isIP(ip) === 4) {
    const [a, b] = ip.split(".").map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168)
    );
  }
  const lower = ip.toLowerCase();
  return lower === "::" || lower === "::1" || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
}
