// The exchange with an upstream provider, done by openid-client (the project's
// relying-party library: it follows the OAuth 2.0 security BCP and is the one
// the tests use as Keyhold's own apps). Keyhold is a client of the upstream:
// authorization code with PKCE (S256), `state`, and for OpenID Connect a
// `nonce`; the callback's `iss` checked against the provider's issuer (RFC 9207)
// where it is sent, or required where the upstream's metadata says it sends
// it; the ID token's signature (the upstream's JWKS), issuer, audience, expiry
// and nonce checked. A plain OAuth 2.0 provider's person is read from its
// userinfo endpoint with the access token.
//
// Nothing here keeps the secrets: the caller passes the client secret opened
// for this exchange, and the state, nonce and verifier are kept in the sign-in.
//
// openid-client is loaded at the first exchange, not at start-up: a process
// whose people never sign in through another provider does not carry it
// (docs/performance.md, "Optional modules loaded on first use").
import type * as OpenIdClient from 'openid-client';
import { OIDC_MAPPING, type FieldMapping, type ProviderConfig } from '../../domain/idp/provider.js';

/** What a started exchange must keep until its callback (in the sign-in, one-time). */
export interface Started {
  url: string;
  state: string;
  nonce?: string;
  verifier: string;
}

/** What the upstream vouched for: its claims, and the mapping that reads them. */
export interface Vouched {
  claims: Record<string, unknown>;
  mapping: FieldMapping;
}

export { UpstreamFailure, type FailureKind } from './upstream-failure.js';
import { UpstreamFailure } from './upstream-failure.js';
import { guardedFetch, type EgressPolicy } from './guarded-fetch.js';

const DISCOVERY_KEPT_MS = 10 * 60 * 1000;
const TIMEOUT_S = 10;

export interface UpstreamClient {
  start(provider: ProviderConfig, clientSecret: string, redirectUri: string, state: string): Promise<Started>;
  /** The callback (its whole URL) checked against what `start` kept, and the upstream's answer. */
  finish(provider: ProviderConfig, clientSecret: string, callback: URL, kept: Omit<Started, 'url'>): Promise<Vouched>;
}

/** An openid-client error as the log says it: its code and the upstream's `error` / `error_description`. */
function failureOf(err: unknown): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  // The guarded fetch's refusal, wrapped by the library.
  if ((err as { cause?: unknown })?.cause instanceof UpstreamFailure) return (err as { cause: UpstreamFailure }).cause;
  const e = err as { name?: string; code?: string; error?: string; error_description?: string; message?: string; cause?: unknown };
  // The upstream's words go to the log only, cut to a line's worth.
  const said = (text: string | undefined) => (text ? `: ${text.slice(0, 300)}` : '');
  if (e?.name === 'AuthorizationResponseError') return new UpstreamFailure('denied', `${(e.error ?? 'error').slice(0, 100)}${said(e.error_description)}`);
  if (e?.name === 'ResponseBodyError') return new UpstreamFailure('refused', `token endpoint: ${(e.error ?? 'error').slice(0, 100)}${said(e.error_description)}`);
  // The library's own refusal of an http endpoint: the operator's setting is what allows it.
  if (e?.code === 'OAUTH_HTTP_REQUEST_FORBIDDEN') return new UpstreamFailure('refused', 'only https is allowed (KEYHOLD_IDP_PRIVATE_NETWORKS=allow lets an operator allow http)');
  if (e?.name === 'TypeError' || e?.name === 'AbortError' || e?.name === 'TimeoutError' || e?.code === 'OAUTH_TIMEOUT') return new UpstreamFailure('unavailable', e.message ?? 'unreachable');
  // openid-client's error wraps the check that failed (oauth4webapi's, whose message names the claim or
  // parameter, never its value: a value may be a code or a token).
  const inner = e?.cause instanceof Error ? `: ${e.cause.message}` : '';
  return new UpstreamFailure('refused', `${e?.code ?? e?.name ?? 'error'}: ${e?.message ?? ''}${inner}`.slice(0, 300));
}

type Library = typeof OpenIdClient;
type Configuration = OpenIdClient.Configuration;

let library: Promise<Library> | undefined;
/** The library; a load that failed is tried again at the next exchange, not kept. */
const loaded = (): Promise<Library> =>
  (library ??= import('openid-client').catch(() => {
    library = undefined;
    throw new UpstreamFailure('unavailable', 'the OpenID client library could not be loaded');
  }));

export function upstreamClient(opts: { now?: () => number; egress?: EgressPolicy } = {}): UpstreamClient {
  const now = opts.now ?? Date.now;
  // Every request to an upstream: discovery, keys, token, userinfo (./guarded-fetch.ts).
  const egress = opts.egress ?? { allowPrivateNetworks: false };
  const fetchGuarded = guardedFetch(egress);
  /** The configuration's requests through the guarded fetch; http only where the operator allows it (checked there too). */
  const guarded = (client: Library, config: Configuration, url: string): Configuration => {
    config[client.customFetch] = fetchGuarded;
    if (url.startsWith('http:') && egress.allowPrivateNetworks) client.allowInsecureRequests(config);
    return config;
  };
  const discovered = new Map<string, { at: number; config: Promise<Configuration> }>();

  /** The provider's configuration: the discovered metadata (kept a while) or the given endpoints. */
  async function configOf(client: Library, provider: ProviderConfig, clientSecret: string): Promise<Configuration> {
    if (provider.kind === 'oauth') {
      // No metadata to discover: the endpoints are the configuration. The issuer is the authorization endpoint's
      // origin only because openid-client needs one; no `iss` parameter is expected from a plain OAuth 2.0 provider.
      const config = new client.Configuration(
        { issuer: new URL(provider.authorizationEndpoint).origin, authorization_endpoint: provider.authorizationEndpoint, token_endpoint: provider.tokenEndpoint },
        provider.clientId,
        { client_secret: clientSecret },
        client.ClientSecretPost(clientSecret),
      );
      return guarded(client, config, provider.authorizationEndpoint);
    }
    const key = `${provider.id} ${provider.issuer} ${provider.clientId}`;
    const held = discovered.get(key);
    if (held && now() - held.at < DISCOVERY_KEPT_MS) return withSecret(client, await held.config, provider, clientSecret);
    const insecure = provider.issuer.startsWith('http:') && egress.allowPrivateNetworks;
    const config = client.discovery(new URL(provider.issuer), provider.clientId, clientSecret, undefined, {
      timeout: TIMEOUT_S,
      [client.customFetch]: fetchGuarded,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
    discovered.set(key, { at: now(), config });
    config.catch(() => discovered.delete(key));
    return withSecret(client, await config, provider, clientSecret);
  }

  /** A configuration with this exchange's secret (the kept one was discovered with the secret of its time). */
  function withSecret(client: Library, config: Configuration, provider: ProviderConfig, clientSecret: string): Configuration {
    const fresh = new client.Configuration(config.serverMetadata(), provider.clientId, clientSecret);
    // The same bound as discovery for the token, userinfo and key requests (the library's default is 30 s).
    fresh.timeout = TIMEOUT_S;
    return guarded(client, fresh, provider.kind === 'oidc' ? provider.issuer : '');
  }

  return {
    async start(provider, clientSecret, redirectUri, state) {
      try {
        const client = await loaded();
        const config = await configOf(client, provider, clientSecret);
        const verifier = client.randomPKCECodeVerifier();
        const params: Record<string, string> = {
          redirect_uri: redirectUri,
          scope: provider.scopes.join(' '),
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
        };
        const nonce = provider.kind === 'oidc' ? client.randomNonce() : undefined;
        if (nonce) params.nonce = nonce;
        return { url: client.buildAuthorizationUrl(config, params).href, state, nonce, verifier };
      } catch (err) {
        throw failureOf(err);
      }
    },
    async finish(provider, clientSecret, callback, kept) {
      try {
        const client = await loaded();
        const config = await configOf(client, provider, clientSecret);
        const tokens = await client.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: kept.verifier,
          expectedState: kept.state,
          ...(provider.kind === 'oidc' ? { expectedNonce: kept.nonce, idTokenExpected: true } : {}),
        });
        if (provider.kind === 'oidc') {
          const claims = tokens.claims();
          if (!claims) throw new UpstreamFailure('refused', 'no ID token');
          // The userinfo adds the profile some upstreams keep out of the ID token; its `sub` must be the token's.
          let info: Record<string, unknown> = {};
          if (config.serverMetadata().userinfo_endpoint) info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
          // The ID token's claims win: they are signed for this client. How the person authenticated
          // (amr, acr) counts only from the signed token, never from the unsigned userinfo answer.
          const { amr: _amr, acr: _acr, ...profile } = info;
          return { claims: { ...profile, ...claims }, mapping: OIDC_MAPPING };
        }
        const answer = await client.fetchProtectedResource(config, tokens.access_token, new URL(provider.userinfoEndpoint), 'GET', undefined, new Headers({ accept: 'application/json', 'user-agent': 'Keyhold' }));
        if (!answer.ok) throw new UpstreamFailure('refused', `userinfo endpoint answered ${answer.status}`);
        const claims = (await answer.json()) as unknown;
        if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw new UpstreamFailure('refused', 'userinfo endpoint answered no JSON object');
        return { claims: claims as Record<string, unknown>, mapping: provider.mapping };
      } catch (err) {
        throw failureOf(err);
      }
    },
  };
}
