// Which redirect and post-logout URIs an app's requests may name: an extension
// of oidc-provider (docs/architecture.md, "Extensions of oidc-provider" 2.), with its start-up
// self-check (checkRedirectUris).
//
// - At the authorization and end_session endpoints the URI sent is compared
//   with the registered ones by exact string (a NATIVE app's http loopback URI
//   on any port, RFC 8252 §7.3: the library's own rule), plus:
//   - a devMode app's globs (ZITADEL's `*` = any run of non-`/` characters);
//   - a sent http(s) URI without a path also matches the registration with
//     the path `/`: the two are one URL to every browser, and registrations
//     made before Keyhold kept URIs as sent were stored with that `/` added,
//     while their apps still send the URI without it (docs/security.md 12).
// - At the token endpoint the `redirect_uri` of an authorization code's
//   redemption may be any spelling a browser reads as the URI the code was
//   issued for: relying parties send the callback URL as their URL parser
//   serialized it (openid-client sends `http://localhost:3000/` for a code
//   asked with `http://localhost:3000`). The code was issued only for a
//   registered URI, and both spellings lead to the same place.
//
// Client.prototype.redirectUriAllowed and postLogoutRedirectUriAllowed are
// the library's own decision points; AuthorizationCode.find is where a
// redemption first meets its code, before the library compares the two.
import Provider from 'oidc-provider';
import { globMatches } from './clients.js';
import { ExtensionCheckFailed } from './extensions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

// scheme "://" authority, then the rest: only http(s) get a `/` path from a browser for an empty one.
const EMPTY_PATH = /^(https?:\/\/[^/?#]*)([?#].*)?$/is;

/** The URI with the `/` path a browser gives an http(s) URI without one; undefined when it has a path or is no http(s) URI. */
export function withRootPath(uri: string): string | undefined {
  const m = EMPTY_PATH.exec(uri);
  return m ? `${m[1]}/${m[2] ?? ''}` : undefined;
}

/** Whether two URIs are one URL to a browser (the WHATWG serialization of both is the same). */
function sameUrl(a: string, b: string): boolean {
  const x = URL.parse(a);
  const y = URL.parse(b);
  return x !== null && y !== null && x.href === y.href;
}

export function applyRedirectUris(provider: Any): void {
  const proto = provider.Client?.prototype;
  for (const name of ['redirectUriAllowed', 'postLogoutRedirectUriAllowed']) {
    if (typeof proto?.[name] !== 'function') throw new ExtensionCheckFailed(`Client.prototype.${name} is gone`);
  }
  const AuthorizationCode = provider.AuthorizationCode;
  if (typeof AuthorizationCode?.find !== 'function') throw new ExtensionCheckFailed('AuthorizationCode.find is gone');

  const allowedOrRooted = (allowed: (this: unknown, value: string) => boolean) =>
    function (this: unknown, value: string): boolean {
      if (allowed.call(this, value)) return true;
      const rooted = typeof value === 'string' ? withRootPath(value) : undefined;
      return rooted !== undefined && allowed.call(this, rooted);
    };

  const redirectUriAllowed = allowedOrRooted(proto.redirectUriAllowed);
  proto.redirectUriAllowed = function keyholdRedirectUriAllowed(this: { keyhold_redirect_globs?: string[]; keyhold_dev_mode?: boolean }, value: string): boolean {
    if (redirectUriAllowed.call(this, value)) return true;
    return this.keyhold_dev_mode === true && (this.keyhold_redirect_globs ?? []).some((g) => globMatches(g, value));
  };
  proto.postLogoutRedirectUriAllowed = allowedOrRooted(proto.postLogoutRedirectUriAllowed);

  const find = AuthorizationCode.find as (this: unknown, ...args: unknown[]) => Promise<Any>;
  AuthorizationCode.find = async function keyholdAuthorizationCodeFind(this: unknown, ...args: unknown[]): Promise<Any> {
    const code = await find.apply(this, args);
    const params = (Provider as Any).ctx?.oidc?.params;
    const sent = params?.redirect_uri;
    if (code && params?.grant_type === 'authorization_code' && typeof sent === 'string' && typeof code.redirectUri === 'string' && sent !== code.redirectUri && sameUrl(sent, code.redirectUri)) {
      params.redirect_uri = code.redirectUri;
    }
    return code;
  };
}

/**
 * Proves the extension takes hold on this provider, at start (after
 * applyRedirectUris). Throws ExtensionCheckFailed naming what no longer works.
 */
export function checkRedirectUris(provider: Any): void {
  const client = new provider.Client({
    client_id: 'keyhold-self-check',
    token_endpoint_auth_method: 'none',
    redirect_uris: ['http://localhost:3000/', 'https://app.example'],
    post_logout_redirect_uris: ['https://app.example/'],
  });
  Object.assign(client, { keyhold_dev_mode: true, keyhold_redirect_globs: ['http://localhost:3001/*'] });
  const registered = client.redirectUriAllowed('https://app.example') && !client.redirectUriAllowed('https://app.example/');
  const rooted = client.redirectUriAllowed('http://localhost:3000') && client.postLogoutRedirectUriAllowed('https://app.example');
  const globs = client.redirectUriAllowed('http://localhost:3001/anything') && !client.redirectUriAllowed('http://localhost:3002/x');
  if (!registered || !rooted || !globs) {
    throw new ExtensionCheckFailed('Client.prototype.redirectUriAllowed/postLogoutRedirectUriAllowed are no longer what decides (exact URIs, the `/` path, dev-mode globs)');
  }
  if (provider.AuthorizationCode.find.name !== 'keyholdAuthorizationCodeFind') throw new ExtensionCheckFailed('AuthorizationCode.find is no longer Keyhold\'s (redirect_uri spellings)');
}
