// The provider's outbound requests: only logout tokens to the back-channel logout
// URI an app registered (Back-Channel Logout 1.0; the library fetches no other
// URL in Keyhold's configuration). The library sets a short timeout (2.5 s) and
// `redirect: 'manual'`, and connects through a dispatcher that refuses
// special-use addresses (loopback, private, link-local); Keyhold keeps all of
// that, and lets a loopback host through only because validation admits one
// only for an app in dev mode (domain/oidc/validate.ts): the developer's app on
// the developer's machine. Redirects are never followed (docs/security.md 33).
import { isLoopbackHost } from '../../domain/oidc/validate.js';

type FetchOptions = RequestInit & { dispatcher?: unknown };

export function backChannelFetch(url: string | URL, options: FetchOptions): Promise<Response> {
  const target = new URL(url);
  const { dispatcher, ...rest } = options;
  const through = isLoopbackHost(target.hostname) ? rest : { ...rest, dispatcher };
  return globalThis.fetch(target, { ...through, redirect: 'manual' } as RequestInit);
}
