// oidc-provider's configuration for Keyhold: ZITADEL's endpoint paths, the
// adapter on the database, clients from the apps, keys from the key ring,
// accounts from the users' read model, Keyhold's login UI for interactions.
// Library behaviour changed beyond configuration lives in extensions.ts only.
import { keepOrgScope } from './org-scope.js';
import Provider, { errors } from 'oidc-provider';
import { API_AUDIENCE_SCOPE } from '../../queries/callers.js';
import { userIsLive, type ReadModel } from '../../queries/read-model.js';
import type { OidcStateStore } from '../../store/oidc-store.js';
import type { AttemptBudgets } from '../../store/attempt-budgets.js';
import { userCodeBuckets } from '../../domain/identity/guess-buckets.js';
import { knownBrowsers } from '../../login/known-browser.js';
import { adapterClass, DEVICE_CODE_GRACE_SECONDS, type AdapterOptions } from './adapter.js';
import { KEYHOLD_CLIENT_PROPERTIES, RESPONSE_TYPES } from './clients.js';
import { applyDeviceFlowExtension, applyExtensions, applyIssuerRequests, clockSkewOf } from './extensions.js';
import { applyRedirectUris } from './redirect-uris.js';
import { applyUnauthorizedClient } from './unauthorized-client.js';
import { applyPostMethods } from './post-methods.js';
import { applyPushedRequests, assertRequestObject, REQUEST_OBJECT_ALGS } from './pushed-requests.js';
import { renderDeviceDone, renderUserCodeConfirm, renderUserCodeInput } from './device-pages.js';
import { customizeMachineJwt, MACHINE_API_RESOURCE, machineResourceServer, machineTokenClaims, machineUserOf } from './machine-clients.js';
import type { ClientReads } from './adapter.js';
import type { KeySet } from './keys.js';
import { renderErrorPage, renderLogoutPage, renderLoggedOutPage } from './pages.js';
import { ACR_VALUES, authenticationClaims } from './acr.js';
import { findAccount, METADATA_CLAIM, METADATA_SCOPE, ROLES_CLAIM, ROLES_SCOPE, type AccountRead, type RolesOf } from './account.js';
import { firstPartyGrant, grantsWithoutConsentPage } from './first-party-grant.js';
import { loginUrl } from '../../login/login-url.js';
import { keepOfflineAccess } from './offline-access.js';
import { providerCookies } from './cookies.js';
import { deviceAsksApiAudience, PROVIDER_SCOPES } from './api-audience.js';
import { DPOP_ALGS } from '../../domain/oidc/dpop-proof.js';
import { introspectionPolicy, revocationPolicy } from './introspection.js';
import { backChannelFetch } from './backchannel-fetch.js';

/** ZITADEL's endpoint paths, so its users feel at home. */
export const OIDC_ROUTES = {
  authorization: '/oauth/v2/authorize',
  token: '/oauth/v2/token',
  introspection: '/oauth/v2/introspect',
  revocation: '/oauth/v2/revoke',
  jwks: '/oauth/v2/keys',
  userinfo: '/oidc/v1/userinfo',
  end_session: '/oidc/v1/end_session',
  // RFC 8628: where a device asks for a code (ZITADEL's path), and Keyhold's page where the user enters it.
  device_authorization: '/oauth/v2/device_authorization',
  code_verification: '/ui/login/device',
  // RFC 9126: where an app pushes its authorization request (pushed-requests.ts).
  pushed_authorization_request: '/oauth/v2/par',
} as const;

/** The endpoints that take POST as well as GET (OIDC Core §3.1.2.1, RP-Initiated Logout §2; post-methods.ts). */
export const POST_METHOD_PATHS = [OIDC_ROUTES.authorization, OIDC_ROUTES.end_session] as const;

/** The scope that asks for an access token for Keyhold's own API (the token resolution in queries/callers.ts). */
export { API_AUDIENCE_SCOPE };

/** How an app authenticates at the token, introspection and revocation endpoints (clients.ts AUTH_METHOD). */
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'] as const;
/** What a private_key_jwt assertion may be signed with (no HS256: the library holds the secret's hash). */
const CLIENT_ASSERTION_ALGS = ['RS256', 'ES256'] as const;

/** Token and session lifetimes in seconds (config KEYHOLD_*_SECONDS, defaults LIFETIMES). */
export interface Lifetimes {
  accessToken: number;
  idToken: number;
  refreshIdle: number;
  refreshAbsolute: number;
  session: number;
  interaction: number;
  authorizationCode: number;
  /** How long a device code (RFC 8628) waits for the user. */
  deviceCode: number;
  /** How often a device may poll for it (seconds; slow_down adds 5 each time). */
  devicePollInterval: number;
}

/** ZITADEL's default lifetimes (seconds). */
export const LIFETIMES: Lifetimes = {
  accessToken: 12 * 3600,
  idToken: 12 * 3600,
  refreshIdle: 30 * 86_400,
  refreshAbsolute: 90 * 86_400,
  session: 14 * 86_400,
  interaction: 3600,
  authorizationCode: 60,
  deviceCode: 300,
  devicePollInterval: 5,
};

export interface ProviderDeps {
  issuer: string;
  keys: KeySet;
  store: OidcStateStore;
  read: AccountRead & ClientReads;
  rolesOf: RolesOf;
  /** Whether the user may still use the app with this client id (queries/login-access.ts mayUseProject). */
  mayUseClient: (userId: string, clientId: string) => Promise<boolean>;
  /** This instance's lifetimes; ZITADEL's defaults when not given. */
  lifetimes?: Lifetimes;
  /** Seals device codes in the stored state (adapter.ts); derived from the master key (keys.ts stateSealKey). */
  sealKey: Buffer;
  /** The guessing budgets a user code typed on the device sign-in page spends (domain/identity/guess-buckets.ts). */
  attempts: Pick<AttemptBudgets, 'reserve'>;
  /** Who sent a request (address through the trusted proxies, User-Agent): what a session is recognised by (adapter.ts). */
  clientOf?: AdapterOptions['clientOf'];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const extra = (client: Any, name: string): Any => client?.[name] ?? client?.[name.replace(/_([a-z])/g, (_m: string, c: string) => c.toUpperCase())];

/** The resource a JWT-access-token app's tokens are for: its project. */
const projectResource = (projectId: string) => `urn:keyhold:project:${projectId}`;

export function createProvider(deps: ProviderDeps): Any {
  const { issuer, keys, store, read, rolesOf, mayUseClient } = deps;
  const lifetimes = deps.lifetimes ?? LIFETIMES;
  const provider = new Provider(issuer, {
    // A pushed request is kept as long as a login started with it may run: used once (pushed-requests.ts).
    adapter: adapterClass(store, read, deps.sealKey, { pushedRequestGraceSeconds: lifetimes.interaction, clientOf: deps.clientOf }),
    clients: [],
    jwks: { keys: keys.signing },
    // Secure and prefixed when the issuer is https (cookies.ts).
    cookies: providerCookies(issuer, keys.cookieKeys),
    routes: OIDC_ROUTES,
    responseTypes: RESPONSE_TYPES,
    // Each app's client metadata narrows these (api-audience.ts: the API audience only for allowed apps).
    scopes: [...PROVIDER_SCOPES],
    // How the user authenticated (acr.ts): acr_values_supported in discovery; amr/acr in tokens.
    acrValues: [...ACR_VALUES],
    extraTokenClaims: (ctx: Any, token: Any) => {
      const machine = machineTokenClaims(ctx?.oidc?.client);
      return machine ? { ...authenticationClaims(ctx, token), ...machine } : authenticationClaims(ctx, token);
    },
    claims: {
      // amr and acr (how the user authenticated: pwd, or pwd hwk mfa; acr.ts) with openid, so every ID token carries them.
      // The roles claim passes with openid too: account.ts adds it only where it belongs (idTokenRoleAssertion, or the roles scope).
      openid: ['sub', 'amr', 'acr', ROLES_CLAIM],
      profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'updated_at'],
      email: ['email', 'email_verified'],
      [ROLES_SCOPE]: [ROLES_CLAIM],
      [METADATA_SCOPE]: [METADATA_CLAIM],
    },
    // The ID token carries scope claims by the app's idTokenUserinfoAssertion (account.ts), not by the library's rule.
    conformIdTokenClaims: false,
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    // What discovery adds to the library's own answer (RFC 8414 §2).
    discovery: {
      // Introspection and revocation authenticate an app as the token endpoint does (client_auth of the library, extensions.ts 1.).
      introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGS],
      revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGS],
    },
    // The library holds the secret's hash, not the secret: nothing may be keyed by it.
    enabledJWA: {
      // Every app's ID tokens are RS256 (clients.ts id_token_signed_response_alg): discovery names only what an app gets.
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256', 'ES256'],
      introspectionSigningAlgValues: ['RS256', 'ES256'],
      authorizationSigningAlgValues: ['RS256', 'ES256'],
      // What an app's keys (AddAppKey: RSA) verify; nothing keyed by the secret, no `none` (pushed-requests.ts).
      requestObjectSigningAlgValues: [...REQUEST_OBJECT_ALGS],
      clientAuthSigningAlgValues: [...CLIENT_ASSERTION_ALGS],
      // The proofs Keyhold's own token checks accept too (domain/oidc/dpop-proof.ts).
      dPoPSigningAlgValues: [...DPOP_ALGS],
    },
    extraClientMetadata: {
      properties: [...KEYHOLD_CLIENT_PROPERTIES],
      validator: () => undefined,
    },
    fetch: backChannelFetch,
    pkce: { required: (_ctx: Any, client: Any) => client.clientAuthMethod === 'none' },
    features: {
      devInteractions: { enabled: false },
      // RFC 9126 and RFC 9101 for every app, neither required; a request_uri only as /par gave it
      // (the library fetches no URL), and a pushed request meets every rule again when it is used.
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false, allowUnregisteredRedirectUris: false },
      requestObjects: { enabled: true, requireSignedRequestObject: false, assertJwtClaimsAndHeader: assertRequestObject },
      // Who may introspect which token, and while what (introspection.ts).
      introspection: { enabled: true, allowedPolicy: introspectionPolicy({ read, rolesOf, mayUseClient }) },
      revocation: { enabled: true, allowedPolicy: revocationPolicy },
      // RFC 8628 for apps with OIDC_GRANT_TYPE_DEVICE_CODE; Keyhold's pages (device-pages.ts), the login UI for the sign-in.
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: renderUserCodeInput,
        userCodeConfirmSource: renderUserCodeConfirm,
        successSource: renderDeviceDone,
      },
      // Machine users' client credentials (machine-clients.ts); apps are never offered this grant (clients.ts).
      clientCredentials: { enabled: true },
      userinfo: { enabled: true },
      // Back-Channel Logout 1.0: an app with a registered URI hears when a session it signed in with ends
      // (at end_session here, the others from backchannel-logout.ts). Outbound: backChannelFetch.
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: renderLogoutPage,
        postLogoutSuccessSource: renderLoggedOutPage,
      },
      resourceIndicators: {
        enabled: true,
        // JWT-access-token apps get tokens for their project (RFC 9068 needs an `aud`); the others opaque ones.
        // Machine users' tokens are for Keyhold's API.
        defaultResource: (_ctx: Any, client: Any) =>
          machineUserOf(client) ? MACHINE_API_RESOURCE : extra(client, 'keyhold_access_token_type') === 'jwt' ? projectResource(extra(client, 'keyhold_project_id')) : undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: Any, resource: string, client: Any) => {
          if (machineUserOf(client)) {
            const server = machineResourceServer(client, resource, lifetimes.accessToken);
            if (!server) throw new errors.InvalidTarget('a machine user’s tokens are for Keyhold’s API only');
            return server;
          }
          if (extra(client, 'keyhold_access_token_type') !== 'jwt' || resource !== projectResource(extra(client, 'keyhold_project_id'))) {
            throw new errors.InvalidTarget('this app may only ask for tokens for its own project');
          }
          return {
            scope: 'openid profile email offline_access ' + ROLES_SCOPE,
            audience: client.clientId,
            accessTokenFormat: 'jwt',
            accessTokenTTL: lifetimes.accessToken,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    formats: {
      customizers: {
        // RFC 9068 access tokens: audience the client and the project; the app's clock skew; roles when asserted.
        async jwt(_ctx: Any, token: Any, jwt: Any) {
          const client = token.client;
          if (customizeMachineJwt(client, jwt)) return;
          const projectId = extra(client, 'keyhold_project_id');
          jwt.payload.aud = [client.clientId, projectId];
          const skew = Number(extra(client, 'keyhold_clock_skew_seconds') ?? 0);
          if (skew > 0) {
            jwt.payload.iat -= skew;
            jwt.payload.exp += skew;
          }
          if (extra(client, 'keyhold_access_token_role_assertion') && token.accountId) {
            const roles = await rolesOf(token.accountId, projectId);
            if (Object.keys(roles).length > 0) jwt.payload[ROLES_CLAIM] = roles;
          }
        },
      },
    },
    findAccount: (ctx: Any, id: string, token?: Any) => findAccount(ctx, id, token, read, rolesOf, mayUseClient),
    interactions: {
      // The org scope the library dropped is put back for the login first (org-scope.ts).
      // offline_access too, for apps allowed the refresh grant (offline-access.ts).
      url: async (ctx: Any, interaction: Any) => {
        await keepOrgScope(ctx, interaction, keepOfflineAccess(ctx, interaction.params));
        return loginUrl(issuer, interaction.uid);
      },
    },
    clientBasedCORS(_ctx: Any, origin: string, client: Any): boolean {
      const origins = new Set<string>(extra(client, 'keyhold_additional_origins') ?? []);
      for (const uri of client.redirectUris ?? []) {
        const parsed = URL.parse(uri);
        if (parsed && (parsed.protocol === 'https:' || parsed.protocol === 'http:')) origins.add(parsed.origin);
      }
      return origins.has(origin);
    },
    renderError: renderErrorPage,
    // A grant is reused, or made for a first-party login without a consent page (first-party-grant.ts),
    // only while the user may log in to the app's project (projectRoleCheck / hasProjectCheck);
    // otherwise the login UI runs and says why not.
    async loadExistingGrant(ctx: Any) {
      // An app allowed the refresh grant gets offline_access without prompt=consent (offline-access.ts).
      keepOfflineAccess(ctx, ctx.oidc.params);
      // A device sign-in asking for Keyhold's API reuses no grant: its consent page comes every time (api-audience.ts).
      if (deviceAsksApiAudience(ctx)) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      const firstParty = grantsWithoutConsentPage(ctx);
      if (!grantId && !firstParty) return undefined;
      const projectId = extra(ctx.oidc.client, 'keyhold_project_id');
      if (projectId && ctx.oidc.session.accountId && !(await mayUseClient(ctx.oidc.session.accountId, ctx.oidc.client.clientId))) return undefined;
      // A session's grant that expired or was revoked is replaced as a first grant would be.
      const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      return existing ?? (firstParty ? firstPartyGrant(ctx) : undefined);
    },
    rotateRefreshToken: true,
    ttl: {
      AccessToken: lifetimes.accessToken,
      AuthorizationCode: lifetimes.authorizationCode,
      DeviceCode: lifetimes.deviceCode,
      // The app's clock skew widens its ID tokens' exp (extensions.ts 4. moves iat, nbf, auth_time back).
      IdToken: (_ctx: Any, _token: Any, client: Any) => lifetimes.idToken + clockSkewOf(client),
      Interaction: lifetimes.interaction,
      Session: lifetimes.session,
      Grant: lifetimes.refreshAbsolute,
      // Idle lifetime of each refresh token; the grant's lifetime bounds them all (absolute).
      RefreshToken: lifetimes.refreshIdle,
    },
  });
  applyExtensions(provider);
  applyRedirectUris(provider);
  applyUnauthorizedClient(provider);
  applyPushedRequests(provider);
  applyIssuerRequests(provider, issuer);
  // POST at the authorization and end-session endpoints, as the GET it stands for (post-methods.ts).
  applyPostMethods(provider, { paths: POST_METHOD_PATHS });
  // The login's known browsers (src/login/routes.ts), read with the same cookie key: a user code typed in one spends its account's budget, not the address's.
  /**
   * The account a known browser's user codes count against: its newest entry
   * for a user still active whose sessions have not ended since the entry was
   * issued — someone who signed in before a reset or a removal spends nobody's
   * budget (and a removed user's entries none at all).
   */
  const standingAccount = async (entries: { userId: string; issued: number }[]): Promise<string | undefined> => {
    for (const entry of entries) {
      const [user, endedAt] = await Promise.all([deps.read.user(entry.userId), deps.store.sessionsEndedAt(entry.userId)]);
      if (userIsLive(user) && (endedAt === undefined || entry.issued * 1000 > endedAt)) return entry.userId;
    }
    return undefined;
  };
  const browsers = knownBrowsers({ cookieKey: () => keys.cookieKeys[0] ?? '', secure: () => issuer.startsWith('https:') });
  applyDeviceFlowExtension(provider, {
    verificationPath: OIDC_ROUTES.code_verification,
    pollIntervalSeconds: lifetimes.devicePollInterval,
    // The poll state lasts as long as the code is kept (its expiry and the grace).
    recordPoll: (code, interval, exp) => store.recordDevicePoll(code, interval, new Date((exp + DEVICE_CODE_GRACE_SECONDS) * 1000)),
    reserveUserCode: async (req, address, session) => deps.attempts.reserve(userCodeBuckets(session, { address, knownTo: await standingAccount(browsers.accounts(req)) })),
  });
  return provider;
}
