// Keyhold's changes to oidc-provider's own behaviour: these, and those this
// list names in their own files (docs/architecture.md lists them all).
// Each extends the library where its maintainer points, on one Provider
// instance's classes only. A start-up self-check (checkExtensions, and each
// file's own) fails loudly when the library changed so that
// an extension no longer takes hold — a pinned upgrade must fail here, not
// silently accept plain-text secrets or refuse dev-mode redirects.
//
// 1. Client.prototype.compareClientSecret — the client's `client_secret` is
//    the stored hash (clients.ts); the presented secret is verified with
//    Keyhold's constant-time verifyClientSecret (panva/node-oidc-provider#631).
//    And the registered method is the only one: the library takes a secret
//    from the Authorization header or the body for either method, Keyhold's
//    BASIC app must use the header and POST app the body. How the secret came
//    is read from the request's head by mount.ts (secretTransport, a
//    request-context slot around the provider's handler). A machine user's
//    client credentials (machine-clients.ts) may come either way,
//    as ZITADEL takes them (the self-check proves both rules of the transport).
//    Wrong secrets are throttled per (client id, client address) and per address
//    (throttle.ts clientSecretThrottle): beyond the free allowance even the
//    right secret is not tried during the delay, answered 429 `slow_down`
//    with Retry-After.
// 2. Which redirect URIs match (dev-mode globs among them): redirect-uris.ts.
// 9. unauthorized_client for a grant or response type an app lacks:
//    unauthorized-client.ts.
// 10. POST at the authorization and end-session endpoints, as the GET it
//    stands for, with the session cookie kept SameSite=Lax: post-methods.ts.
// 11. Pushed authorization requests and request objects (the scope as sent
//    kept in a plain push, Keyhold's rule for a request object's claims):
//    pushed-requests.ts.
// 3. Client.Schema.prototype.invalidate — the two refusals Keyhold decides
//    against (compliance is advice at creation, as in ZITADEL):
//    'implicit-force-https' and 'implicit-forbid-localhost' (implicit web
//    apps on http or localhost) are let through; every other refusal stays.
// 4. IdToken.prototype.issue — the app's clockSkew on ID tokens: `iat`, `nbf`
//    and `auth_time` moved back by it (the library sets `iat` itself and lets
//    no hook change it; `exp` gets the skew through ttl.IdToken in
//    configuration.ts, which the library asks for the lifetime).
// 6. The device authorization grant (RFC 8628) where the library falls short
//    (applyDeviceFlowExtension, its own self-check checkDeviceFlowExtension):
//    - slow_down: DeviceCode.find, when the token endpoint looks up a pending
//      device code, records the poll (in the database, atomically, so every
//      process counts it); a poll sooner than the code's interval answers
//      `slow_down` and grows that interval by 5 seconds for every later poll
//      (§3.5). The device authorization response names the `interval`.
//    - verification_uri_complete: the library answers it with an auto-submit
//      page with inline script and no CSP; the user_code is taken off the
//      query instead and shown prefilled on Keyhold's own code page
//      (device-pages.ts), which the user confirms (RFC 8628 §5.4).
//    - a request to the code page's form or its resume path without the
//      session cookie is sent to the code page (303): the library renders its
//      error into a session it never saved and then fails to persist it (a 500).
//    - user codes typed on the code page spend guessing budgets (per browser
//      session, and per client address or, in a browser known to an account,
//      per that account: domain/identity/guess-buckets.ts): DeviceCode.findByUserCode,
//      when the code page looks a typed code up, reserves the attempt first
//      and counts an unknown code as a failure; beyond the budget the code is
//      not looked up and the page answers 429 with how long to wait
//      (UserCodeThrottled, rendered by device-pages.ts). The library has no
//      limit of its own: ~55 guesses a second went through.
// 8. The request's host and protocol are the issuer's (applyIssuerRequests,
//    its own self-check checkIssuerRequests): the library builds every URL it
//    advertises or redirects to from koa's `ctx.href` (urlFor: discovery, the
//    login's returnTo, the device and logout forms) and marks cookies Secure by
//    `ctx.secure` — both from the request's Host (or :authority) and, with
//    `proxy`, X-Forwarded-*. On this provider's request prototype (Koa's
//    `app.request`, from which every ctx.request of the app is made, also the
//    contexts interactionDetails/interactionResult make) `host` and `protocol`
//    are the configured issuer's, whatever a client sent; `proxy` stays off, so
//    no X-Forwarded-* header is read by the library at all.
import { contextSlot } from '../request-context.js';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Provider, { errors } from 'oidc-provider';
import { verifyClientSecret } from '../../domain/oidc/index.js';
import type { ReserveResult } from '../../store/attempt-budgets.js';
import type { ClientSecretThrottle } from './throttle.js';

/** The client-schema refusals Keyhold waives (3.). */
export const WAIVED_SCHEMA_CODES: ReadonlySet<string> = new Set(['implicit-force-https', 'implicit-forbid-localhost']);

/** The request being handled (set by mount.ts for each request): HTTP Basic credentials or not, the client's IP, the throttle, its response for Retry-After. */
export const secretTransport = contextSlot<{
  basic: boolean;
  ip?: string;
  throttle?: ClientSecretThrottle;
  setHeader?: (name: string, value: string) => void;
}>('client secret transport');

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
  for (const name of ['compareClientSecret']) {
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
  // 1.: the secret comparison goes through the hash.
  client.clientSecret = sampleHash;
  const ok = await client.compareClientSecret(sampleSecret);
  const wrong = await client.compareClientSecret(`${sampleSecret}x`);
  if (ok !== true || wrong !== false) throw new ExtensionCheckFailed('Client.prototype.compareClientSecret does not verify against the stored hash');
  // 1., the transport: a BASIC app's secret is refused from the body; a machine user's is taken from either.
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

/** RFC 8628's grant type. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** What the device flow's extension (6.) needs from Keyhold. */
export interface DeviceFlowOptions {
  /** Where the library serves the code page (configuration.ts OIDC_ROUTES). */
  verificationPath: string;
  /** The interval a device is told to poll at (seconds). */
  pollIntervalSeconds: number;
  /** Records a poll of a pending device code (store/oidc-store.ts recordDevicePoll). */
  recordPoll(deviceCode: string, intervalSeconds: number, expiresAtEpoch: number): Promise<{ slowDown: boolean; intervalSeconds: number }>;
  /** Reserves one typed user code in the budgets of this browser session and of its address or the account it is known to (domain/identity/guess-buckets.ts userCodeBuckets). */
  reserveUserCode(req: IncomingMessage, address: string, session: string): Promise<ReserveResult>;
}

/** Too many unknown user codes typed: the code is not looked up (429; the code page says how long: device-pages.ts). */
export class UserCodeThrottled extends errors.OIDCProviderError {
  error_description: string;
  constructor(
    readonly retryAfterSeconds: number,
    /** What was typed, shown again in the form. */
    readonly userCode?: string,
  ) {
    super(429, 'slow_down');
    this.error_description = `too many unknown codes: wait ${retryAfterSeconds} seconds and try again`;
  }
}

/** Set by the start-up self-check (checkDeviceFlowExtension): the code page's lookup answers UserCodeThrottled without spending any budget. */
const userCodeProbe = contextSlot<true>('user code probe');

const PREFILL = 'keyholdUserCode';

/** The user code a verification_uri_complete link brought (6.), for the code page to show prefilled. */
export function prefilledUserCode(ctx: Any): string | undefined {
  const code = ctx?.state?.[PREFILL];
  return typeof code === 'string' ? code : undefined;
}

export function applyDeviceFlowExtension(provider: Any, options: DeviceFlowOptions): void {
  const DeviceCode = provider.DeviceCode;
  if (typeof DeviceCode?.find !== 'function') throw new ExtensionCheckFailed('DeviceCode.find is gone');
  if (typeof DeviceCode.findByUserCode !== 'function') throw new ExtensionCheckFailed('DeviceCode.findByUserCode is gone');
  if (typeof provider.use !== 'function' || typeof provider.on !== 'function') throw new ExtensionCheckFailed('Provider#use/on is gone');
  if (typeof Object.getOwnPropertyDescriptor(Provider, 'ctx')?.get !== 'function') throw new ExtensionCheckFailed('Provider.ctx (the request being handled) is gone');

  // The code off the query before the library sees it; the device authorization request marked.
  provider.use(async (ctx: Any, next: () => Promise<void>) => {
    const codePage = ctx.path === options.verificationPath;
    if ((codePage ? ctx.method !== 'GET' : ctx.path.startsWith(`${options.verificationPath}/`)) && !ctx.cookies.get(provider.cookieName('session'))) {
      ctx.status = 303;
      ctx.set('cache-control', 'no-store');
      ctx.redirect(new URL(options.verificationPath, provider.issuer).href);
      return;
    }
    if (ctx.path === options.verificationPath && ctx.method === 'GET' && ctx.querystring) {
      const query = new URLSearchParams(ctx.querystring);
      const code = query.get('user_code');
      if (code !== null) {
        query.delete('user_code');
        ctx.querystring = query.toString();
        ctx.state[PREFILL] = code.slice(0, 64);
      }
    }
    return next();
  });

  provider.on('device_authorization.success', (_ctx: Any, body: Any) => {
    if (body && typeof body === 'object') body.interval = options.pollIntervalSeconds;
  });

  const findByUserCode = DeviceCode.findByUserCode as (this: unknown, userCode: unknown, opts?: unknown) => Promise<Any>;
  DeviceCode.findByUserCode = async function keyholdDeviceCodeFindByUserCode(this: unknown, userCode: unknown, opts?: unknown): Promise<Any> {
    const ctx = (Provider as Any).ctx;
    if (ctx?.oidc?.route !== 'code_verification') return findByUserCode.call(this, userCode, opts);
    const typed = typeof ctx.oidc.params?.user_code === 'string' ? ctx.oidc.params.user_code.slice(0, 64) : undefined;
    if (userCodeProbe.getStore()) throw new UserCodeThrottled(1, typed);
    const held = await options.reserveUserCode(ctx.req, secretTransport.getStore()?.ip ?? '', String(ctx.oidc.session?.uid ?? ''));
    if (!held.ok) {
      ctx.set('retry-after', String(held.waitSeconds));
      throw new UserCodeThrottled(held.waitSeconds, typed);
    }
    let code: Any;
    try {
      code = await findByUserCode.call(this, userCode, opts);
    } catch (e) {
      await held.finish('none').catch(() => {});
      throw e;
    }
    // Any code found (even expired or used) was no guess at an unknown one; a success clears nothing here (anyone can request codes).
    await held.finish(code ? 'success' : 'failure');
    return code;
  };

  const find = DeviceCode.find as (this: unknown, value: unknown, opts?: unknown) => Promise<Any>;
  DeviceCode.find = async function keyholdDeviceCodeFind(this: unknown, value: unknown, opts?: unknown): Promise<Any> {
    const code = await find.call(this, value, opts);
    const ctx = (Provider as Any).ctx;
    const polling = ctx?.oidc?.route === 'token' && ctx.oidc.params?.grant_type === DEVICE_CODE_GRANT;
    if (polling && code && typeof value === 'string' && !code.isExpired && !code.accountId && !code.error && code.clientId === ctx.oidc.client?.clientId) {
      const poll = await options.recordPoll(value, options.pollIntervalSeconds, code.exp);
      if (poll.slowDown) throw new errors.SlowDown(`polling too fast: wait at least ${poll.intervalSeconds} seconds between polls`);
    }
    return code;
  };
}

/** One request through the provider's own handler, in process (no socket): what a browser would get (a GET unless a form is sent; `rawBody` is sent as the form's body as it is). */
export function requestInProcess(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  url: string,
  send: { cookie?: string; form?: Record<string, string>; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const req = new IncomingMessage(new Socket());
  const body = send.rawBody ?? (send.form ? new URLSearchParams(send.form).toString() : undefined);
  req.method = body === undefined ? 'GET' : 'POST';
  req.url = url;
  req.headers = {
    ...(send.headers ?? { host: 'localhost', accept: 'text/html' }),
    ...(send.cookie ? { cookie: send.cookie } : {}),
    ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) } : {}),
  };
  if (body !== undefined) req.push(body);
  req.push(null);
  const res = new ServerResponse(req);
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    res.write = ((chunk: unknown) => {
      if (chunk) chunks.push(Buffer.from(chunk as string));
      return true;
    }) as Any;
    res.end = ((chunk?: unknown) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
      resolve({ status: res.statusCode, headers: res.getHeaders() as Record<string, unknown>, body: Buffer.concat(chunks).toString('utf8') });
      return res;
    }) as Any;
    handler(req, res);
  });
}

/**
 * Proves 6. takes hold on this provider, at start (after applyDeviceFlowExtension).
 * Throws ExtensionCheckFailed naming what no longer works.
 */
export async function checkDeviceFlowExtension(provider: Any, options: Pick<DeviceFlowOptions, 'verificationPath'>): Promise<void> {
  if (provider.DeviceCode.find.name !== 'keyholdDeviceCodeFind') throw new ExtensionCheckFailed('DeviceCode.find is no longer Keyhold\'s (slow_down)');
  // verification_uri_complete: Keyhold's page, prefilled, no script, the strict CSP.
  const answer = await requestInProcess(provider.callback(), `${options.verificationPath}?user_code=BCDF-GHJK`);
  const cookie = ([] as string[]).concat((answer.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const sessionCookie = `${provider.cookieName('session')}=`;
  const session = cookie.map((c) => (c.startsWith(sessionCookie) ? c.slice(sessionCookie.length).split(';')[0] : undefined)).find(Boolean);
  // A typed user code: the form's lookup is Keyhold's (its budget refusal, probed without spending one, is the page's 429).
  const xsrf = /name="xsrf" value="([^"]*)"/.exec(answer.body)?.[1] ?? '';
  const cookies = cookie.map((c) => c.split(';')[0]).join('; ');
  const typed = await userCodeProbe.run(true, () => requestInProcess(provider.callback(), options.verificationPath, { cookie: cookies, form: { xsrf, user_code: 'BCDF-GHJK' } }));
  if (session) await provider.Session.adapter.destroy(session);
  if (typed.status !== 429) throw new ExtensionCheckFailed(`a typed user code is no longer looked up through DeviceCode.findByUserCode (the code page answered ${typed.status}, not the budget's 429)`);
  const stray = await requestInProcess(provider.callback(), `${options.verificationPath}/keyhold-self-check`);
  if (stray.status !== 303) throw new ExtensionCheckFailed(`a device resume without a session is answered ${stray.status}, not sent to the code page`);
  if (answer.status !== 200 || /<script/i.test(answer.body) || !answer.body.includes('value="BCDF-GHJK"') || !String(answer.headers['content-security-policy'] ?? '').includes("default-src 'none'")) {
    throw new ExtensionCheckFailed(`the device code page for a verification_uri_complete link is not Keyhold's script-free page (status ${answer.status})`);
  }
}

/** 8.: this provider's requests are the issuer's, whatever Host, :authority or X-Forwarded-* they carry. */
export function applyIssuerRequests(provider: Any, issuer: string): void {
  const { host, protocol } = new URL(issuer);
  const request = provider.request;
  if (!request || typeof request !== 'object' || !('host' in request) || !('protocol' in request)) throw new ExtensionCheckFailed('Provider#request (Koa\'s app.request) is gone');
  provider.proxy = false;
  Object.defineProperties(request, {
    host: { get: () => host, configurable: true },
    protocol: { get: () => protocol.slice(0, -1), configurable: true },
  });
}

/** A host no request of Keyhold's may make a URL of (the self-check sends it in every header that could name one). */
const FOREIGN_HOST = 'keyhold-self-check.invalid';

/**
 * Proves 8. takes hold on this provider, at start: discovery asked with a
 * foreign Host, X-Forwarded-Host and -Proto advertises only the issuer's URLs,
 * and a context made for the login is as secure as the issuer.
 */
export async function checkIssuerRequests(provider: Any, issuer: string): Promise<void> {
  const otherProtocol = issuer.startsWith('https:') ? 'http' : 'https';
  const foreign = { host: FOREIGN_HOST, 'x-forwarded-host': FOREIGN_HOST, 'x-forwarded-proto': otherProtocol, accept: 'application/json' };
  const answer = await requestInProcess(provider.callback(), '/.well-known/openid-configuration', { headers: foreign });
  let discovery: Record<string, unknown> = {};
  try {
    discovery = JSON.parse(answer.body);
  } catch {
    // judged below
  }
  const urls = Object.entries(discovery).filter(([name, value]) => name.endsWith('_endpoint') || name === 'jwks_uri' || (name === 'issuer' && typeof value === 'string'));
  const stray = urls.filter(([, value]) => typeof value !== 'string' || (value !== issuer && !value.startsWith(`${issuer}/`)));
  if (answer.status !== 200 || urls.length < 4 || stray.length > 0) {
    throw new ExtensionCheckFailed(`discovery asked with a foreign Host advertises ${stray.length ? stray.map(([n, v]) => `${n}=${String(v)}`).join(', ') : `no endpoints (status ${answer.status})`}, not the issuer's URLs only`);
  }
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/ui/login/keyhold-self-check';
  req.headers = foreign;
  const ctx = provider.createContext(req, new ServerResponse(req));
  if (ctx.secure !== issuer.startsWith('https:') || !String(ctx.href).startsWith(`${issuer}/`)) {
    throw new ExtensionCheckFailed(`a request context's href and secure come from the request (${String(ctx.href)}, secure ${String(ctx.secure)}), not from the issuer`);
  }
}
