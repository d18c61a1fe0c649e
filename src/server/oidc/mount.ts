// Mounts oidc-provider inside Keyhold's one fastify listener: requests to its
// paths (discovery, /oauth/v2/…, /oidc/v1/…) are hijacked before fastify
// parses a body and handed to the provider's Node handler, with `originalUrl`
// set so discovery advertises the paths as the client sees them; the host and
// scheme of every URL the provider makes are the issuer's (extensions.ts 8.).
// The login UI (src/login/routes.ts) is plain fastify routes under /ui/login/,
// over this provider's interactions (interactions.ts).
//
// The provider is made once the port is known (its default issuer names it)
// and made again when the key set in the database changes (keys.ts; checked
// every KEY_RELOAD_MS): its state is all in the database, so a new instance
// serves the logins the old one started.
import { applyRequestReads } from './request-reads.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ReadModel } from '../../queries/read-model.js';
import { DPOP_PROOF_MODEL, type OidcKeyStore, type OidcStateStore } from '../../store/oidc-store.js';
import type { AttemptBudgets } from '../../store/attempt-budgets.js';
import { generateClientSecret, hashClientSecret } from '../../domain/oidc/index.js';
import type { RepeatedErrorLog } from '../repeated-errors.js';
import { createProvider, LIFETIMES, OIDC_ROUTES, POST_METHOD_PATHS, type Lifetimes } from './configuration.js';
import { AS_METADATA_PATH, DISCOVERY_PATH, isOidcPath } from './paths.js';
import { PROVIDER_CSP, renderErrorPage } from './pages.js';
import { checkDeviceFlowExtension, checkExtensions, checkIssuerRequests, secretTransport } from './extensions.js';
import { checkRedirectUris } from './redirect-uris.js';
import { checkUnauthorizedClient } from './unauthorized-client.js';
import { checkPostMethods } from './post-methods.js';
import { checkPushedRequests } from './pushed-requests.js';
import { keySetMaxAge, loadKeySet, PUBLIC_MAX_AGE_SECONDS, rotateKeys, stateSealKey, type KeySet, type RotationPolicy } from './keys.js';
import { clientSecretThrottle } from './throttle.js';
import { registerLoginRoutes } from '../../login/routes.js';
import { registerInviteRoutes } from '../../login/invite-routes.js';
import type { InvitePagePorts } from '../../login/invite-ports.js';
import type { LoginPorts } from '../../login/ports.js';
import { interactionPort } from './interactions.js';
import { registerAccountRoutes } from '../../account/routes.js';
import type { AccountPorts } from '../../account/ports.js';
import { consoleRedirectUri } from '../../commands/instance/add-console-app.js';
import { accountSessionPort } from './account-session.js';
import { backchannelLoop } from './backchannel-logout.js';
import { toStoreError } from '../../store/errors.js';
import { jwtCredentials, jwtUserinfo } from './jwt-userinfo.js';
import type { AdapterOptions, ClientReads } from './adapter.js';
import { verifyMachineJwt } from './machine-clients.js';
import { auditProvider, type RecordOidc } from './audit.js';
import { checkSingleUse } from './single-use.js';
import { checkOfflineAccess } from './offline-access.js';
import type { RolesOf } from './account.js';
import type { MachineJwt } from '../../queries/callers.js';
import { isStoreUnavailable, loggableStoreError, RETRY_AFTER_SECONDS, speakingProvider, unavailableAnswers, UNAVAILABLE_DESCRIPTION } from './unavailable.js';
import { loggable, noteOAuthErrors, type NoteOAuthError } from './error-notes.js';
import { countProviderEvents } from './provider-metrics.js';
import type { IdentityObserver } from '../metrics.js';
import type { TakeResult } from '../http/rate-limit.js';

/** How often each process looks for a changed key set. */
export const KEY_RELOAD_MS = 60_000;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export interface OidcDeps {
  store: OidcStateStore;
  keyStore: OidcKeyStore;
  read: Pick<ReadModel, 'appByClientId' | 'user' | 'userMetadataOf'> & ClientReads;
  rolesOf: RolesOf;
  /** Whether the user may log in to the project's apps (projectRoleCheck / hasProjectCheck). */
  mayUseClient: (userId: string, clientId: string) => Promise<boolean>;
  login: LoginPorts;
  /** The account page's adapters (src/account/); none: no account page. */
  account?: AccountPorts;
  /** The invitation page's ports (src/login/invite-ports.ts); none: no invitation page. */
  invite?: InvitePagePorts;
  log: Logger;
  errors: RepeatedErrorLog;
  /** Signing-key rotation (config KEYHOLD_SIGNING_KEY_*); none: keys are never rotated. */
  keyRotation?: { rotationSeconds: number; aheadSeconds: number };
  /** Token and session lifetimes (config KEYHOLD_*_LIFETIME_SECONDS…); ZITADEL's defaults when not given. */
  lifetimes?: Partial<Lifetimes>;
  /** Grants and revocations as events of the user (audit.ts); none: not recorded. */
  audit?: RecordOidc;
  /** The provider's OAuth refusals onto their requests' log lines (error-notes.ts); none: not noted. */
  noteOAuthError?: NoteOAuthError;
  /** Tokens issued, reuse detected and second factors, for the operator (metrics.ts, provider-metrics.ts); none: not counted. */
  identity?: IdentityObserver;
  /** The guessing budgets (store/attempt-budgets.ts): user codes on the device sign-in page spend them. Expired provider state and budgets are deleted by the housekeeping sweep (housekeeping.ts). */
  attempts: AttemptBudgets;
  /**
   * The API's per-address rate limit (KEYHOLD_RATE_LIMIT_*, rate-limit.ts), which a pushed
   * authorization request spends too: it stores a request for anyone who names a public
   * app's client id. None: not limited.
   */
  pushLimit?: (address: string) => TakeResult;
  /** Who sent a request (http/app.ts): a login session's address and device (adapter.ts). */
  clientOf?: AdapterOptions['clientOf'];
}

/** A predecessor key stays published this long after its successor took over: the longest token it signed, and a margin. */
export const keepSeconds = (lifetimes: Lifetimes) => Math.max(lifetimes.accessToken, lifetimes.idToken) + 300;

export interface OidcMount {
  /** Starts serving with this issuer and master key (after the port is known). */
  start(issuer: string, masterKey: Buffer): Promise<void>;
  /** Re-reads the key set now; rebuilds the provider when it changed. */
  reloadKeys(): Promise<boolean>;
  /** The current provider (tests). */
  provider(): Any;
  /** A machine user's JWT access token checked against this issuer and the current keys (machine-clients.ts). */
  machineJwt(token: string): MachineJwt | undefined;
  stop(): Promise<void>;
}


export function mountOidc(fastify: FastifyInstance, deps: OidcDeps): OidcMount {
  let current: { provider: Any; handler: (req: Any, res: Any) => void; keys: KeySet } | undefined;
  let issuer = '';
  let master: Buffer | undefined;
  const timers: NodeJS.Timeout[] = [];
  // Wrong client secrets, per client id and IP, for every provider this process builds.
  const secretThrottle = clientSecretThrottle();
  const lifetimes: Lifetimes = { ...LIFETIMES, ...deps.lifetimes };
  // Public and cacheable: discovery changes only with the configuration; the key set within the rotation's lead (keys.ts).
  const cacheable: Readonly<Record<string, string>> = {
    [DISCOVERY_PATH]: `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`,
    [AS_METADATA_PATH]: `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`,
    [OIDC_ROUTES.jwks]: `public, max-age=${keySetMaxAge(deps.keyRotation?.aheadSeconds)}`,
  };

  // First of the hooks: before CORS and the API headers, and before any body is read.
  fastify.addHook('onRequest', (req, reply, done) => {
    const path = req.url.split('?')[0] ?? '';
    if (!isOidcPath(path)) return done();
    if (!current) {
      reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send({ error: 'temporarily_unavailable', error_description: 'the OpenID Provider is starting' });
      return;
    }
    const jwt = path === OIDC_ROUTES.userinfo ? jwtCredentials(req.headers.authorization) : undefined;
    if (jwt) {
      // JWT access tokens at userinfo (jwt-userinfo.ts): the library refuses them.
      const keys = current.keys;
      const presented = { ...jwt, proof: req.headers.dpop as string | undefined, method: req.method };
      const claimProof = (key: string, expiresIn: number) => deps.store.insertNew(DPOP_PROOF_MODEL, key, {}, expiresIn);
      const sessionsEndedAt = (userId: string) => deps.store.sessionsEndedAt(userId);
      jwtUserinfo(presented, { issuer: () => issuer, signingKeys: () => keys.signing, read: deps.read, rolesOf: deps.rolesOf, mayUseClient: deps.mayUseClient, claimProof, sessionsEndedAt }).then(
        (answer) => {
          const error = answer.body.error;
          if (typeof error === 'string') deps.noteOAuthError?.(req.raw, { error, description: loggable(answer.body.error_description) });
          if (answer.wwwAuthenticate) reply.header('www-authenticate', answer.wwwAuthenticate);
          const origin = req.headers.origin;
          if (origin) reply.header('vary', 'origin');
          reply.code(answer.status).header('cache-control', 'no-store').send(answer.body);
        },
        (err: unknown) => {
          if (isStoreUnavailable(err)) {
            noteUnavailable(loggableStoreError(err));
            reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).header('cache-control', 'no-store').send({ error: 'temporarily_unavailable', error_description: UNAVAILABLE_DESCRIPTION });
            return;
          }
          deps.errors.error(err, { component: 'oidc' }, 'userinfo for a JWT access token failed');
          deps.noteOAuthError?.(req.raw, { error: 'server_error' });
          reply.code(500).send({ error: 'server_error' });
        },
      );
      return;
    }
    const limited = path === OIDC_ROUTES.pushed_authorization_request ? deps.pushLimit?.(req.ip ?? '') : undefined;
    if (limited && !limited.ok) {
      const wait = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
      const body = { error: 'slow_down', error_description: `too many requests from this address: wait ${wait} seconds and try again` };
      deps.noteOAuthError?.(req.raw, { error: body.error, description: body.error_description });
      reply.code(429).header('retry-after', String(wait)).header('cache-control', 'no-store').send(body);
      return;
    }
    reply.hijack();
    (req.raw as Any).originalUrl = req.raw.url;
    // RFC 8414's metadata is the library's discovery document, asked under its other name.
    if (path === AS_METADATA_PATH) req.raw.url = DISCOVERY_PATH + req.raw.url!.slice(path.length);
    const basic = /^basic\s/i.test(req.headers.authorization ?? '');
    const handler = current.handler;
    const raw = reply.raw;
    const cacheControl = req.method === 'GET' || req.method === 'HEAD' ? cacheable[path] : undefined;
    if (cacheControl) raw.setHeader('cache-control', cacheControl);
    // RFC 6749 §5.1: no cache keeps a token answer, HTTP/1.0 ones included (the library sets only Cache-Control).
    if (path === OIDC_ROUTES.token) raw.setHeader('pragma', 'no-cache');
    // The library's own pages (the auto-submitting forms of response_mode=form_post and of a sign-out
    // without a session) came with no policy at all: framable, any script. It adds its inline script's
    // hash to a script-src it finds on the response, so this policy is in place before it answers.
    raw.setHeader('content-security-policy', PROVIDER_CSP);
    raw.setHeader('x-frame-options', 'DENY');
    secretTransport.run({ basic, ip: req.ip ?? '', throttle: secretThrottle, setHeader: (n, v) => raw.setHeader(n, v) }, () => handler(req.raw, raw));
  });

  // Store failures of the provider and the login pages: logged once per interval, answered 503 (unavailable.ts).
  const noteUnavailable = (err: Error) => deps.errors.error(err, { component: 'oidc' }, 'the OpenID Provider could not use the database');
  const speak = <T extends object>(ports: T): T => speakingProvider(ports, noteUnavailable);

  const getProvider = () => {
    if (!current) throw new Error('the OpenID Provider has not started');
    return current.provider;
  };
  registerLoginRoutes(fastify, {
    interactions: interactionPort({ provider: getProvider, noteClient: (req, clientId) => deps.noteOAuthError?.(req, { clientId }) }),
    ports: speak(deps.login),
    cookieKey: () => current?.keys.cookieKeys[0] ?? '',
    issuer: () => issuer,
    observer: deps.identity,
    unavailable: { is: isStoreUnavailable, retryAfterSeconds: RETRY_AFTER_SECONDS },
  });
  if (deps.invite) {
    registerInviteRoutes(fastify, {
      ports: speak(deps.invite),
      cookieKey: () => current?.keys.cookieKeys[0] ?? '',
      issuer: () => issuer,
      unavailable: { is: isStoreUnavailable, retryAfterSeconds: RETRY_AFTER_SECONDS },
    });
  }

  if (deps.account) {
    registerAccountRoutes(fastify, {
      sessions: speak(accountSessionPort({ provider: getProvider, store: deps.store, audit: deps.audit })),
      account: speak(deps.account),
      login: speak(deps.login),
      cookieKey: () => current?.keys.cookieKeys[0] ?? '',
      issuer: () => issuer,
      // The console signs in through the login; its session is then this page's.
      signInUrl: () => consoleRedirectUri(issuer),
      unavailable: { is: isStoreUnavailable, retryAfterSeconds: RETRY_AFTER_SECONDS },
    });
  }

  async function build(keys: KeySet): Promise<void> {
    const sealKey = stateSealKey(master!);
    // Its ports answer store failures in its own terms (unavailable.ts).
    const provider = createProvider({
      issuer,
      keys,
      store: speak(deps.store),
      read: speak(deps.read),
      rolesOf: speak(deps.rolesOf),
      mayUseClient: speak(deps.mayUseClient),
      lifetimes,
      sealKey,
      attempts: speak(deps.attempts),
      clientOf: deps.clientOf,
    });
    provider.use(unavailableAnswers(renderErrorPage));
    applyRequestReads(provider);
    const secret = generateClientSecret();
    await checkExtensions(provider, hashClientSecret(secret), secret);
    checkRedirectUris(provider);
    checkUnauthorizedClient(provider);
    await checkDeviceFlowExtension(provider, { verificationPath: OIDC_ROUTES.code_verification });
    checkSingleUse(provider);
    checkOfflineAccess(provider);
    await checkIssuerRequests(provider, issuer);
    await checkPostMethods(provider, { paths: POST_METHOD_PATHS });
    await checkPushedRequests(provider, issuer, OIDC_ROUTES.pushed_authorization_request);
    provider.on('server_error', (_ctx: Any, err: Error) => deps.errors.error(err, { component: 'oidc' }, 'OpenID Provider error'));
    if (deps.noteOAuthError) noteOAuthErrors(provider, deps.noteOAuthError);
    if (deps.audit) auditProvider(provider, deps.audit, deps.errors);
    if (deps.identity) countProviderEvents(provider, deps.identity);
    current = { provider, handler: provider.callback(), keys };
  }

  async function reloadKeys(): Promise<boolean> {
    if (!master) return false;
    if (deps.keyRotation) {
      const policy: RotationPolicy = { ...deps.keyRotation, keepSeconds: keepSeconds(lifetimes) };
      if (await rotateKeys(deps.keyStore, master, policy)) deps.log.debug('OpenID signing keys rotated');
    }
    const keys = await loadKeySet(deps.keyStore, master);
    if (current && keys.fingerprint === current.keys.fingerprint) return false;
    await build(keys);
    deps.log.info({ keys: keys.signing.map((k) => ({ kid: k.kid, alg: k.alg })) }, 'OpenID Provider key set loaded');
    return true;
  }

  return {
    async start(iss, masterKey) {
      issuer = iss;
      master = masterKey;
      await reloadKeys();
      // Often enough that a successor published `aheadSeconds` before use is seen by every process in time.
      const reloadMs = deps.keyRotation ? Math.max(250, Math.min(KEY_RELOAD_MS, (deps.keyRotation.aheadSeconds * 1000) / 4)) : KEY_RELOAD_MS;
      timers.push(
        setInterval(() => {
          reloadKeys().catch((err: unknown) => deps.errors.error(err, { task: 'oidc keys' }, 'reloading the OpenID keys failed'));
        }, reloadMs).unref(),
        // Logout tokens for the sessions Keyhold ended (backchannel-logout.ts).
        // A database outage is logged as the store's DatabaseUnavailable, never the driver's error.
        backchannelLoop(deps.store, () => current?.provider, deps.log, (err) => deps.errors.error(toStoreError(err), { task: 'back-channel logout' }, 'sending logout tokens failed')),
      );
    },
    reloadKeys,
    provider: getProvider,
    machineJwt: (token) => (current ? verifyMachineJwt(token, issuer, current.keys.signing) : undefined),
    async stop() {
      for (const t of timers) clearInterval(t);
      current = undefined;
    },
  };
}

export { OIDC_ROUTES };
