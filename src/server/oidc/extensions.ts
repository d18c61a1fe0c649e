// EVERY change Keyhold makes to oidc-provider's own behaviour, in one file
// (README "Log in with your app" lists them). Each extends the library where
// its maintainer points, on one Provider instance's classes only. A start-up
// self-check (checkExtensions) fails loudly when the library changed so that
// an extension no longer takes hold — a pinned upgrade must fail here, not
// silently accept plain-text secrets or refuse dev-mode redirects.
//
// 1. Client.prototype.compareClientSecret — the client's `client_secret` is
//    the stored hash (clients.ts); the presented secret is verified with
//    Keyhold's constant-time verifyClientSecret (panva/node-oidc-provider#631).
//    And the registered method is the only one: the library takes a secret
//    from the Authorization header or the body for either method, Keyhold's
//    BASIC app must use the header and POST app the body. How the secret came
//    is read from the request's head by mount.ts (secretTransport, an
//    AsyncLocalStorage around the provider's handler). A machine user's
//    client credentials (issue 18, machine-clients.ts) may come either way,
//    as ZITADEL takes them (the self-check proves both rules of the transport).
//    Wrong secrets are throttled per client id and per client IP
//    (throttle.ts clientSecretThrottle): beyond the free allowance even the
//    right secret is not tried during the delay, answered 429 `slow_down`
//    with Retry-After.
// 2. Client.prototype.redirectUriAllowed — dev-mode apps also match their
//    registered globs (ZITADEL's devMode: `*` = any run of non-`/` characters).
// 3. Client.Schema.prototype.invalidate — the two refusals Keyhold decides
//    against (compliance is advice at creation, as in ZITADEL):
//    'implicit-force-https' and 'implicit-forbid-localhost' (implicit web
//    apps on http or localhost) are let through; every other refusal stays.
// 4. IdToken.prototype.issue — the app's clockSkew on ID tokens: `iat`, `nbf`
//    and `auth_time` moved back by it (the library sets `iat` itself and lets
//    no hook change it; `exp` gets the skew through ttl.IdToken in
//    configuration.ts, which the library asks for the lifetime).
import { AsyncLocalStorage } from 'node:async_hooks';
import { errors } from 'oidc-provider';
import { verifyClientSecret } from '../../domain/oidc/index.js';
import { globMatches } from './clients.js';
import type { ClientSecretThrottle } from './throttle.js';

/** The client-schema refusals Keyhold waives (3.). */
export const WAIVED_SCHEMA_CODES: ReadonlySet<string> = new Set(['implicit-force-https', 'implicit-forbid-localhost']);

/** The request being handled (set by mount.ts for each request): HTTP Basic credentials or not, the client's IP, the throttle, its response for Retry-After. */
export const secretTransport = new AsyncLocalStorage<{
  basic: boolean;
  ip?: string;
  throttle?: ClientSecretThrottle;
  setHeader?: (name: string, value: string) => void;
}>();

/** Too many wrong client secrets: try again later (429, RFC 6585; the error code is RFC 8628's slow_down). */
export class ClientAuthThrottled extends errors.OIDCProviderError {
  error_description: string;
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'slow_down');
    this.error_description = `too many failed client authentications: wait ${retryAfterSeconds} seconds and try again`;
  }
}

const METHOD_HINT: Readonly<Record<string, string>> = {
  client_secret_basic: 'this app is registered with the auth method BASIC: send the client secret in the Authorization header (client_secret_basic), not in the body',
  client_secret_post: 'this app is registered with the auth method POST: send client_id and client_secret in the form body (client_secret_post), not in an Authorization header',
};

export class ExtensionCheckFailed extends Error {
  constructor(what: string) {
    super(`oidc-provider changed: ${what}. Keyhold's extensions (src/server/oidc/extensions.ts) need review before this version is used.`);
    this.name = 'ExtensionCheckFailed';
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export function applyExtensions(provider: Any): void {
  const Client = provider.Client;
  const proto = Client?.prototype;
  for (const name of ['compareClientSecret', 'redirectUriAllowed']) {
    if (typeof proto?.[name] !== 'function') throw new ExtensionCheckFailed(`Client.prototype.${name} is gone`);
  }
  const Schema = Client.Schema;
  if (typeof Schema?.prototype?.invalidate !== 'function') throw new ExtensionCheckFailed('Client.Schema.prototype.invalidate is gone');

  const IdToken = provider.IdToken;
  if (typeof IdToken?.prototype?.issue !== 'function' || typeof IdToken?.prototype?.payload !== 'function') throw new ExtensionCheckFailed('IdToken.prototype.issue/payload is gone');

  // 1. Hashed client secrets.
  proto.compareClientSecret = function compareClientSecret(this: { clientId?: string; clientSecret?: string; clientAuthMethod?: string; keyhold_machine_user_id?: string }, actual: string): boolean {
    const transport = secretTransport.getStore();
    const method = this.clientAuthMethod;
    const clientId = String(this.clientId ?? '');
    const ip = transport?.ip ?? '';
    // Throttled before any verification: a guess during the delay is not even tried.
    const wait = transport?.throttle?.wait(clientId, ip) ?? 0;
    if (wait > 0) {
      transport?.setHeader?.('retry-after', String(wait));
      throw new ClientAuthThrottled(wait);
    }
    const eitherWay = typeof this.keyhold_machine_user_id === 'string';
    if (transport && !eitherWay && ((method === 'client_secret_basic' && !transport.basic) || (method === 'client_secret_post' && transport.basic))) {
      transport.throttle?.failed(clientId, ip);
      throw new errors.InvalidClientAuth(METHOD_HINT[method]);
    }
    const ok = typeof this.clientSecret === 'string' && typeof actual === 'string' && verifyClientSecret(actual, this.clientSecret);
    if (!ok) transport?.throttle?.failed(clientId, ip);
    return ok;
  };

  // 2. Dev-mode globs.
  const redirectUriAllowed = proto.redirectUriAllowed as (this: unknown, value: string) => boolean;
  proto.redirectUriAllowed = function keyholdRedirectUriAllowed(this: { keyhold_redirect_globs?: string[]; keyhold_dev_mode?: boolean }, value: string): boolean {
    if (redirectUriAllowed.call(this, value)) return true;
    return this.keyhold_dev_mode === true && (this.keyhold_redirect_globs ?? []).some((g) => globMatches(g, value));
  };

  // 4. Clock skew on ID tokens.
  const issue = IdToken.prototype.issue as (this: Any, opts?: Any) => Promise<string>;
  IdToken.prototype.issue = function keyholdIssue(this: Any, opts?: Any): Promise<string> {
    const skew = clockSkewOf(this.client);
    if (opts?.use === 'idtoken' && skew > 0) {
      const now = Math.floor(Date.now() / 1000);
      this.extra.iat = now - skew;
      this.extra.nbf = now - skew;
      if (typeof this.available?.auth_time === 'number') this.available = { ...this.available, auth_time: this.available.auth_time - skew };
    }
    return issue.call(this, opts);
  };

  // 3. Waived schema refusals.
  const invalidate = Schema.prototype.invalidate as (this: unknown, message: string, code?: string) => void;
  Schema.prototype.invalidate = function keyholdInvalidate(this: unknown, message: string, code?: string): void {
    if (code !== undefined && WAIVED_SCHEMA_CODES.has(code)) return;
    invalidate.call(this, message, code);
  };
}

/** The app's clock skew in seconds (clients.ts keyhold_clock_skew_seconds); 0 when none. */
export function clockSkewOf(client: Any): number {
  const skew = Number(client?.keyhold_clock_skew_seconds ?? client?.keyholdClockSkewSeconds ?? 0);
  return Number.isFinite(skew) && skew > 0 ? Math.floor(skew) : 0;
}

/**
 * Proves each extension takes hold on this provider, at start. Throws
 * ExtensionCheckFailed naming what no longer works.
 */
export async function checkExtensions(provider: Any, sampleHash: string, sampleSecret: string): Promise<void> {
  const { Client } = provider;
  const base = { client_id: 'keyhold-self-check', token_endpoint_auth_method: 'none', grant_types: ['implicit'], response_types: ['id_token'] };
  // 3.: an implicit web app on http://localhost is accepted.
  let client: Any;
  try {
    client = new Client({ ...base, redirect_uris: ['http://localhost:3000/cb'] });
  } catch (e) {
    throw new ExtensionCheckFailed(`an implicit web client on http://localhost is still refused (${(e as Error).message}); the invalidate codes ${[...WAIVED_SCHEMA_CODES].join(', ')} are no longer passed`);
  }
  // ... while other refusals remain.
  let refused = false;
  try {
    new Client({ ...base, redirect_uris: ['javascript:alert(1)'] });
  } catch {
    refused = true;
  }
  if (!refused) throw new ExtensionCheckFailed('the client schema no longer refuses a javascript: redirect URI');
  // 2.: dev-mode globs.
  Object.assign(client, { keyhold_dev_mode: true, keyhold_redirect_globs: ['http://localhost:3000/*'] });
  if (!client.redirectUriAllowed('http://localhost:3000/anything') || client.redirectUriAllowed('http://localhost:3001/x')) {
    throw new ExtensionCheckFailed('Client.prototype.redirectUriAllowed is no longer what authorization checks');
  }
  // 1.: the secret comparison goes through the hash.
  client.clientSecret = sampleHash;
  const ok = await client.compareClientSecret(sampleSecret);
  const wrong = await client.compareClientSecret(`${sampleSecret}x`);
  if (ok !== true || wrong !== false) throw new ExtensionCheckFailed('Client.prototype.compareClientSecret does not verify against the stored hash');
  // 1., the transport: a BASIC app's secret is refused from the body; a machine user's (issue 18) is taken from either.
  Object.defineProperty(client, 'clientAuthMethod', { value: 'client_secret_basic', configurable: true });
  const fromBody = () => secretTransport.run({ basic: false }, async () => (await client.compareClientSecret(sampleSecret)) === true).catch(() => false);
  const appFromBody = await fromBody();
  client.keyhold_machine_user_id = 'keyhold-self-check';
  const machineFromBody = await fromBody();
  delete client.keyhold_machine_user_id;
  if (appFromBody || !machineFromBody) throw new ExtensionCheckFailed('Client.prototype.compareClientSecret no longer decides by the transport (BASIC apps by header only, machine users either way)');
  // 4.: an ID token for an app with a clock skew has iat, nbf and auth_time moved back, exp forward.
  client.keyhold_clock_skew_seconds = 60;
  const authTime = Math.floor(Date.now() / 1000) - 10;
  const idToken = new provider.IdToken({ sub: 'keyhold-self-check', auth_time: authTime }, { client });
  idToken.scope = 'openid';
  // auth_time is asked for as a flow with require_auth_time would (claims mask).
  idToken.mask = { auth_time: null };
  const jwt = await idToken.issue({ use: 'idtoken' });
  const payload = JSON.parse(Buffer.from(String(jwt).split('.')[1] ?? '', 'base64url').toString('utf8'));
  const now = Math.floor(Date.now() / 1000);
  if (!(payload.iat <= now - 59 && payload.nbf === payload.iat && payload.auth_time === authTime - 60)) {
    throw new ExtensionCheckFailed('IdToken.prototype.issue no longer lets Keyhold set iat/nbf/auth_time of an ID token (clockSkew)');
  }
}
