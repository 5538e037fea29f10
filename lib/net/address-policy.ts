import ipaddr from "ipaddr.js";

/** A network: an address and its prefix length. */
export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** What the operator lets the console reach although private: ranges (OUTBOUND_ALLOW) and host names. */
export interface OutboundAllowance {
  ranges: readonly Cidr[];
  /** Lower-case host names whose addresses are not checked (the operator vouches for them). */
  hosts: ReadonlySet<string>;
}

export const NOTHING_ALLOWED: OutboundAllowance = Object.freeze({ ranges: [], hosts: new Set<string>() });

// IPv6 "unicast" in ipaddr.js includes ::7f00:1 (IPv4-compatible), 1::1 and 4000::1: only 2000::/3 is global.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** The allowance an admin gave a source at import, as kept in its stored options (`allow`), or none. */
export function storedAllowance(options: Record<string, unknown> | undefined): string[] {
  const allow = options?.allow;
  return Array.isArray(allow) ? allow.filter((entry): entry is string => typeof entry === "string") : [];
}

/**
 * An allowance from entries like "127.0.0.0/8", "10.1.2.3", "::1", "api.internal". Throws an Error
 * naming the first entry that is neither a CIDR range, an address nor a host name.
 */
export function parseAllowance(entries: readonly string[]): OutboundAllowance {
  const ranges: Cidr[] = [];
  const hosts = new Set<string>();
  for (const raw of entries) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, "$1");
    if (!entry) continue;
    try {
      if (entry.includes("/")) {
        ranges.push(ipaddr.parseCIDR(entry));
        continue;
      }
      if (ipaddr.isValid(entry)) {
        const address = ipaddr.process(entry);
        ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
        continue;
      }
    } catch {
      throw new Error(`"${raw.trim()}" is not a valid CIDR range`);
    }
    if (!HOST_NAME.test(entry)) throw new Error(`"${raw.trim()}" is neither a CIDR range, an IP address nor a host name`);
    hosts.add(entry);
  }
  return { ranges, hosts };
}

/** Said with every refused address: the person reading it may mean to reach it. */
const HOW_TO_ALLOW = " (reached only when OUTBOUND_ALLOW or the source's allow list names it)";

/**
 * Why the console may not connect to the IP address `raw` (brackets allowed), or undefined when it
 * may: only global unicast addresses, unless a range of the allowance holds it. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is classified as the IPv4 address it carries; NAT64, 6to4
 * and Teredo addresses are refused whole.
 */
export function refuseAddress(raw: string, allow: OutboundAllowance = NOTHING_ALLOWED): string | undefined {
  const host = raw.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(host)) return `${raw} is not an IP address`;
  const address = ipaddr.process(host);
  if (allow.ranges.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits))) return undefined;
  const range = address.range();
  if (range !== "unicast") return `${address.toString()} is a ${range} address${HOW_TO_ALLOW}`;
  if (address.kind() === "ipv6" && !address.match(GLOBAL_UNICAST_V6))
    return `${address.toString()} is not a global unicast address${HOW_TO_ALLOW}`;
  return undefined;
}

/**
 * Why the console may not fetch `url` before any connection: not http(s), credentials in it, or an IP
 * literal that refuseAddress refuses. A host name is checked when it is resolved (at connect time).
 */
export function refuseUrl(url: URL, allow: OutboundAllowance = NOTHING_ALLOWED): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return `${url.protocol} URLs are not allowed (http and https only)`;
  if (url.username || url.password) return "URLs with credentials in them are not allowed";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return ipaddr.isValid(host) ? refuseAddress(host, allow) : undefined;
}
