// Every request Keyhold makes to another identity provider goes through this
// fetch (openid-client's customFetch): the provider's endpoints are set by an
// org administrator, so without a rule they are a way into the host's own
// network (SSRF: a metadata service, a database's HTTP port, an admin UI).
//
// The rule, checked at connect time (the address the socket is opened to, so a
// name that resolves elsewhere on a second lookup gains nothing): https only,
// and never an address that is not public — loopback, private, link-local,
// unique-local, carrier-grade NAT, multicast, unspecified — unless the
// operator allows them (KEYHOLD_IDP_PRIVATE_NETWORKS=allow: a provider on the
// company network, or on the same machine; http is then allowed too).
// Redirects are never followed (openid-client does not ask to).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { CustomFetch, CustomFetchOptions } from 'openid-client';
import { UpstreamFailure } from './upstream-failure.js';

/** Addresses that are not the public Internet (IANA special-purpose registries). */
const NOT_PUBLIC = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96]] as const) NOT_PUBLIC.addSubnet(prefix, bits, 'ipv6');

/** Whether `address` (an IP) is not a public address; an IPv4-mapped IPv6 address counts as its IPv4. */
export function isNotPublic(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return NOT_PUBLIC.check(mapped, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface EgressPolicy {
  /** KEYHOLD_IDP_PRIVATE_NETWORKS=allow: http, and addresses that are not public. */
  allowPrivateNetworks: boolean;
}

/** The endpoint's refusal as the log says it (the URL's host only: a query may hold a code). */
const refusedHost = (url: URL, why: string) => new UpstreamFailure('refused', `${url.protocol}//${url.host}: ${why} (KEYHOLD_IDP_PRIVATE_NETWORKS=allow lets an operator allow it)`);

/** A fetch for openid-client that opens sockets only where `policy` allows. */
export function guardedFetch(policy: EgressPolicy): CustomFetch {
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = policy.allowPrivateNetworks ? undefined : list.find((a) => isNotPublic(a.address));
      if (bad || list.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to an address that is not public`), { code: 'EGRESS_REFUSED' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };

  return async (target: string, options: CustomFetchOptions): Promise<Response> => {
    const url = new URL(target);
    if (url.protocol !== 'https:' && !(policy.allowPrivateNetworks && url.protocol === 'http:')) throw refusedHost(url, 'only https is allowed');
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(literal) && !policy.allowPrivateNetworks && isNotPublic(literal)) throw refusedHost(url, 'the address is not public');
    const sent = options.body;
    const body = sent === undefined || sent === null ? undefined : typeof sent === 'string' ? Buffer.from(sent) : sent instanceof URLSearchParams ? Buffer.from(sent.toString()) : Buffer.from(sent as Uint8Array);
    const headers: Record<string, string> = { ...options.headers };
    if (body) headers['content-length'] = String(body.length);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const req = transport.request(url, { method: options.method, headers, lookup, ...(options.signal ? { signal: options.signal } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answer = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const v of value) answer.append(key, v);
            else if (value !== undefined) answer.set(key, value);
          }
          const status = res.statusCode ?? 502;
          const nullBody = status === 204 || status === 304 || options.method === 'HEAD';
          resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: answer }));
        });
        res.on('error', reject);
      });
      // As fetch does: a connection that fails is a TypeError (the library's "unreachable"), an abort an AbortError.
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EGRESS_REFUSED') return reject(refusedHost(url, 'the address is not public'));
        if (err.name === 'AbortError' || err.name === 'TimeoutError') return reject(err);
        reject(Object.assign(new TypeError(`fetch failed: ${err.code ?? err.message}`), { cause: err }));
      });
      req.end(body);
    });
  };
}
