// KEYHOLD_TRUSTED_PROXIES: the proxies whose X-Forwarded-For Keyhold believes.
// A request's client address is its peer's, unless that peer is a trusted
// proxy: then the X-Forwarded-For entries are walked from the right (the
// nearest hop first) past every trusted proxy, and the first other address is
// the client's. Nobody else's X-Forwarded-* is read, so a client cannot pick
// the address its throttles, rate limits and log lines are counted under.
// The same walk as fastify's `trustProxy` (app.ts hands it `trusts`), so
// `req.ip` and the gRPC paths' address (which fastify never sees) agree.
import { BlockList, isIP } from 'node:net';

/** One entry: an IPv4 or IPv6 address, or a CIDR range of either. */
export interface ProxyRange {
  address: string;
  prefix?: number;
}

/** Parses one entry; undefined when it is neither an address nor a CIDR range. */
export function parseProxyRange(entry: string): ProxyRange | undefined {
  const [address = '', prefix, extra] = entry.trim().split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  if (prefix === undefined) return { address };
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  return bits <= (family === 4 ? 32 : 128) ? { address, prefix: bits } : undefined;
}

/** A request's headers (HTTP/1.1 or HTTP/2), as Node gives them. */
export type ForwardingHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface TrustedProxies {
  /** Whether a connection from `address` is a trusted proxy. */
  trusts(address: string | undefined): boolean;
  /**
   * The client's address for a request from `peer` with these headers: the peer's, or, from a
   * trusted proxy, the nearest untrusted X-Forwarded-For hop. The one place Keyhold reads that header.
   */
  clientAddress(peer: string | undefined, headers: ForwardingHeaders): string | undefined;
  /** Whether any proxy is trusted at all. */
  readonly any: boolean;
}

export function trustedProxies(ranges: readonly ProxyRange[]): TrustedProxies {
  const list = new BlockList();
  for (const r of ranges) {
    const type = isIP(r.address) === 4 ? 'ipv4' : 'ipv6';
    if (r.prefix === undefined) list.addAddress(r.address, type);
    else list.addSubnet(r.address, r.prefix, type);
  }
  const anyTrusted = ranges.length > 0;
  const trusts = (address: string | undefined): boolean => {
    // None trusted (the default): no check, which makes an address object per call (~1% of the
    // server's time at userinfo, c=16).
    if (!anyTrusted) return false;
    const family = address ? isIP(address) : 0;
    return family !== 0 && list.check(address!, family === 4 ? 'ipv4' : 'ipv6');
  };
  return {
    any: anyTrusted,
    trusts,
    clientAddress(peer, headers) {
      if (!trusts(peer)) return peer;
      const forwardedFor = headers['x-forwarded-for'];
      const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
      const hops = header.split(',').map((h) => h.trim()).filter(Boolean).reverse();
      let client = peer;
      for (const hop of hops) {
        client = hop;
        if (!trusts(hop)) break;
      }
      return client;
    },
  };
}
