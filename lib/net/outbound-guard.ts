import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent } from "undici";
import { DomainError } from "../errors";
import { NOTHING_ALLOWED, parseAllowance, refuseAddress, refuseUrl, storedAllowance, type OutboundAllowance } from "./address-policy";

/** The console refused to connect to an address (private, loopback, link-local, reserved...). */
export class AddressNotAllowed extends DomainError<"address_not_allowed"> {
  override readonly name = "AddressNotAllowed";
  constructor(message: string) {
    super("address_not_allowed", message);
  }
}

/** A resolver with `dns.lookup`'s signature (tests inject one; production uses the system's). */
export type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface OutboundGuardOptions {
  resolve?: Resolve;
  /** Connect timeout, ms (default 10 s). */
  connectTimeoutMs?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The one way the console reaches other machines (documents, tool calls, remote agents). Names are
 * resolved once, at connect time, by an undici Agent whose lookup refuses a name when any of its
 * addresses is refused, so a DNS answer that changes between a check and the connection cannot get
 * through; IP literals (which never reach the lookup) are checked before each request; redirects
 * are followed by hand, each hop checked again.
 */
export class OutboundGuard {
  private readonly agent: Agent;
  /** The guards of sources allowed more, by their allowance: one connection pool each. */
  private readonly widened = new Map<string, OutboundGuard>();

  constructor(
    readonly allowance: OutboundAllowance = NOTHING_ALLOWED,
    private readonly options: OutboundGuardOptions = {},
  ) {
    this.agent = new Agent({ connect: { lookup: this.lookup, timeout: options.connectTimeoutMs ?? 10_000 } });
  }

  /**
   * `fetch` through the guard. A redirect is returned as it is unless `maxRedirects` allows following
   * it (credentials stay with the origin that got them). Throws AddressNotAllowed for a refused
   * address, and what `fetch` throws otherwise (its `cause` says why).
   */
  async fetch(input: string | URL, init: RequestInit = {}, options: { maxRedirects?: number } = {}): Promise<Response> {
    const maxRedirects = options.maxRedirects ?? 0;
    let url = new URL(input);
    let { method = "GET", body, headers } = init;
    for (let hop = 0; ; hop++) {
      const refused = refuseUrl(url, this.allowance);
      if (refused) throw new AddressNotAllowed(`${url.origin}: ${refused}`);
      let response: Response;
      try {
        response = await fetch(url, { ...init, method, body, headers, redirect: "manual", dispatcher: this.agent } as RequestInit);
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause;
        throw cause instanceof AddressNotAllowed ? cause : error;
      }
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || !location || hop >= maxRedirects) return response;
      await response.body?.cancel().catch(() => {});
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        const kept = new Headers(headers);
        kept.delete("authorization");
        kept.delete("cookie");
        headers = kept;
      }
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method.toUpperCase() === "POST")) {
        method = "GET";
        body = undefined;
      }
      url = next;
    }
  }

  /**
   * Why `raw` could not be fetched, found without connecting: its scheme, credentials, an IP literal,
   * or a name resolving to a refused address. For a friendly early answer (at import); the Agent
   * enforces the rule again at every connection. A name that does not resolve is refused unless
   * `allowUnresolved`.
   */
  async check(raw: string, allowUnresolved = false): Promise<string | undefined> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return `"${raw}" is not an absolute URL`;
    }
    const refused = refuseUrl(url, this.allowance);
    if (refused) return refused;
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    // new URL writes every IPv4 spelling as a dotted quad: isIP sees the literals refuseUrl has checked.
    if (isIP(host) || this.allowance.hosts.has(host)) return undefined;
    return new Promise((resolve) =>
      this.lookup(host, { all: true }, (error: NodeJS.ErrnoException | null) => {
        if (!error) return resolve(undefined);
        if (error instanceof AddressNotAllowed) return resolve(error.message);
        resolve(allowUnresolved ? undefined : `${host} does not resolve`);
      }),
    );
  }

  /**
   * This guard, also allowing `entries` (a source's allowance: ranges, addresses, host names). The
   * same entries give the same guard. Throws an Error naming an entry that is none of those.
   */
  widen(entries: readonly string[]): OutboundGuard {
    const key = [...new Set(entries.map((e) => e.trim().toLowerCase()).filter(Boolean))].sort().join(",");
    if (!key) return this;
    let guard = this.widened.get(key);
    if (!guard) {
      const extra = parseAllowance(key.split(","));
      const allowance = { ranges: [...this.allowance.ranges, ...extra.ranges], hosts: new Set([...this.allowance.hosts, ...extra.hosts]) };
      guard = new OutboundGuard(allowance, this.options);
      this.widened.set(key, guard);
    }
    return guard;
  }

  /** This guard, widened by the allowance kept in a source's stored options (see widen). */
  forSource(options: Record<string, unknown> | undefined): OutboundGuard {
    return this.widen(storedAllowance(options));
  }

  /** Close the pooled connections. */
  async close(): Promise<void> {
    await Promise.all([this.agent.close(), ...[...this.widened.values()].map((guard) => guard.close())]);
  }

  /** net/tls `lookup`: resolve once; refuse the name when ANY address is refused; hand back what was checked. */
  private readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string; hints?: number },
    callback: (...args: never[]) => void,
  ): void => {
    const answer = callback as unknown as (
      error: NodeJS.ErrnoException | null,
      address?: string | LookupAddress[],
      family?: number,
    ) => void;
    const resolve = this.options.resolve ?? (dnsLookup as unknown as Resolve);
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : Number(options.family ?? 0);
    resolve(hostname, { family: family as 0 | 4 | 6, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return answer(error);
      if (!addresses.length) return answer(Object.assign(new Error(`${hostname} has no addresses`), { code: "ENOTFOUND" }));
      if (!this.allowance.hosts.has(hostname.toLowerCase())) {
        for (const { address } of addresses) {
          const refused = refuseAddress(address, this.allowance);
          if (refused) return answer(new AddressNotAllowed(`${hostname} resolves to ${address}: ${refused}`));
        }
      }
      if (options.all) answer(null, addresses);
      else answer(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
