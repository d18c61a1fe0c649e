// Whose address a guess comes from (src/domain/identity/address-key.ts): an
// IPv4 host, an IPv6 /64 however it is written, a mapped IPv4 as that host.
import { describe, expect, it } from 'vitest';
import { addressBucketKey } from '../../../src/domain/identity/address-key.js';

describe('the address a guessing budget counts', () => {
  it('an IPv4 address is its host', () => {
    expect(addressBucketKey('192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucketKey('192.0.2.2')).not.toBe(addressBucketKey('192.0.2.1'));
  });

  it('every address of one IPv6 /64 is one bucket, however written; the next /64 is another', () => {
    const one = ['2001:db8:0:1::1', '2001:db8:0:1:ffff:ffff:ffff:ffff', '2001:0db8:0000:0001:1234:5678:9abc:def0', '2001:DB8:0:1::abcd', 'fe80::1%eth0'.replace('fe80::1', '2001:db8:0:1::2')];
    expect(new Set(one.map(addressBucketKey))).toEqual(new Set(['2001:db8:0:1::/64']));
    expect(addressBucketKey('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(addressBucketKey('::1')).toBe('0:0:0:0::/64');
  });

  it('an IPv4-mapped IPv6 address is the IPv4 host it maps, in either spelling', () => {
    expect(addressBucketKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucketKey('::ffff:c000:201')).toBe('192.0.2.1');
    expect(addressBucketKey('0:0:0:0:0:ffff:192.0.2.1')).toBe('192.0.2.1');
  });

  it('what is no address stays as given (a test name, a unix socket)', () => {
    expect(addressBucketKey('unknown')).toBe('unknown');
    expect(addressBucketKey('')).toBe('');
  });
});
