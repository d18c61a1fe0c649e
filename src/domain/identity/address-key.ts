// What one guesser's address is, for the guessing budgets. An IPv4 address
// is one host. An IPv6 address is not: a single subscriber is routinely given
// a whole /64 (SLAAC, privacy addresses), so budgets per /128 would give each
// attacker 2^64 of them — the bucket is the /64. An IPv4-mapped IPv6 address
// (a dual-stack socket's `::ffff:192.0.2.1`) is the IPv4 host it maps.
import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part as two groups). */
function groupsOf(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The key of the address's bucket: the IPv4 host, or the IPv6 /64 (`2001:db8:0:1::/64`); anything else as given. */
export function addressBucketKey(address: string): string {
  if (isIPv4(address)) return address;
  const bare = address.split('%')[0]!; // a zone index names an interface, not a host
  if (!isIPv6(bare)) return address;
  const g = groupsOf(bare);
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  if (mapped) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}
