// Classification of redirect URIs for the compliance report (design §6).
// The scheme and host come from the WHATWG URL parser, never from string
// prefixes: "HTTP://LOCALHOST/cb" is loopback http, "http://localhost.evil.com"
// is not loopback, and "httpx://cb" is a custom scheme, not http.

export type RedirectUriClass = 'https' | 'http-loopback' | 'http' | 'custom';

// After WHATWG parsing, IPv4 hosts are canonical dotted quads (so "127.1" and
// "0x7f000001" have already become 127.0.0.1) and IPv6 hosts are compressed and
// bracketed (so "[0:0:0:0:0:0:0:1]" has become "[::1]").
const LOOPBACK_IPV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || LOOPBACK_IPV4.test(hostname);
}

export function classifyRedirectUri(uri: string): RedirectUriClass {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    // Stored values were validated, but a record written under older rules may
    // not parse; treat it as the least trusted kind.
    return 'custom';
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https') return 'https';
  if (scheme === 'http') return isLoopbackHost(url.hostname.toLowerCase()) ? 'http-loopback' : 'http';
  return 'custom';
}
