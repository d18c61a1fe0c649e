// Whose X-Forwarded-For is believed: only a trusted peer's, walked from the
// nearest hop past every trusted proxy (the walk fastify's trustProxy makes).
import { describe, expect, it } from 'vitest';
import { parseProxyRange, trustedProxies } from '../../../src/server/http/trusted-proxies.js';

/** The headers of a request that carries this X-Forwarded-For. */
const xff = (value: string | string[] | undefined) => ({ 'x-forwarded-for': value });

const proxies = trustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'].map((e) => parseProxyRange(e)!));

describe('client address', () => {
  it("an untrusted peer's X-Forwarded-For is ignored", () => {
    expect(proxies.clientAddress('203.0.113.9', xff('198.51.100.1'))).toBe('203.0.113.9');
    expect(trustedProxies([]).clientAddress('127.0.0.1', xff('198.51.100.1'))).toBe('127.0.0.1');
  });

  it('a trusted peer: the first untrusted hop from the right, past every trusted proxy', () => {
    expect(proxies.clientAddress('127.0.0.1', xff('198.51.100.1'))).toBe('198.51.100.1');
    // What the client wrote itself (left of the address its proxy appended) is not believed.
    expect(proxies.clientAddress('127.0.0.1', xff('1.2.3.4, 198.51.100.1, 10.1.2.3'))).toBe('198.51.100.1');
    expect(proxies.clientAddress('127.0.0.1', xff(['1.2.3.4', '198.51.100.1']))).toBe('198.51.100.1');
    expect(proxies.clientAddress('::ffff:127.0.0.1', xff('198.51.100.1'))).toBe('198.51.100.1');
    expect(proxies.clientAddress('fd00::5', xff('2001:db8::1'))).toBe('2001:db8::1');
    // Trusted all the way: the leftmost; no header: the peer.
    expect(proxies.clientAddress('127.0.0.1', xff('10.0.0.2, 10.0.0.3'))).toBe('10.0.0.2');
    expect(proxies.clientAddress('127.0.0.1', xff(undefined))).toBe('127.0.0.1');
  });

  it('no peer address (a stream without a socket): none', () => {
    expect(proxies.clientAddress(undefined, xff('198.51.100.1'))).toBeUndefined();
    expect(proxies.trusts(undefined)).toBe(false);
    expect(proxies.trusts('not an address')).toBe(false);
  });
});
