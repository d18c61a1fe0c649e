// An app asking for a grant or response type it is not registered for is
// answered `unauthorized_client` (RFC 6749 §4.1.2.1 at the authorization
// endpoint, redirected to the app as any error there; §5.2 at the token
// endpoint; RFC 8628 §3.2 at the device authorization endpoint). The library
// says `invalid_request`, which tells a developer their request is malformed
// when it is their app's registration that lacks the type. An extension of
// oidc-provider (docs/architecture.md, "Extensions of oidc-provider" 9.), with its start-up
// self-check (checkUnauthorizedClient).
//
// Client.prototype.grantTypeAllowed and responseTypeAllowed are where the
// library decides; they refuse by throwing only when asked about the type the
// request itself names: the library also asks grantTypeAllowed in passing
// (whether to issue a refresh token, which tokens a revocation reaches), and
// there a plain no stays a plain no.
import { contextSlot } from '../request-context.js';
import { errors } from 'oidc-provider';
import { ExtensionCheckFailed } from './extensions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** What the app's owner does about a grant type it lacks (the management API's names). */
const GRANT_FIX: Readonly<Record<string, string>> = {
  authorization_code: 'add OIDC_GRANT_TYPE_AUTHORIZATION_CODE to its grant types',
  refresh_token: 'add OIDC_GRANT_TYPE_REFRESH_TOKEN to its grant types',
  [DEVICE_CODE_GRANT]: 'add OIDC_GRANT_TYPE_DEVICE_CODE to its grant types',
  client_credentials: 'client credentials are for machine users, not apps',
};

/** Which grant type a request of each route names, when it names one. */
const GRANT_ASKED: Readonly<Record<string, (params: Any) => unknown>> = {
  token: (params) => params?.grant_type,
  device_authorization: () => DEVICE_CODE_GRANT,
};

/** The routes that ask for a response type. */
const RESPONSE_TYPE_ROUTES: ReadonlySet<string> = new Set(['authorization', 'pushed_authorization_request']);

/** The provider request being handled (its ctx.oidc is filled in by the library's router). */
const handling = contextSlot<Any>('provider request');

function grantRefusal(type: string): Error {
  return new errors.UnauthorizedClient(`this app may not use the grant type ${type}: ${GRANT_FIX[type] ?? 'add it to its grant types'}`);
}

export function applyUnauthorizedClient(provider: Any): void {
  const proto = provider.Client?.prototype;
  for (const name of ['grantTypeAllowed', 'responseTypeAllowed']) {
    if (typeof proto?.[name] !== 'function') throw new ExtensionCheckFailed(`Client.prototype.${name} is gone`);
  }
  if (typeof provider.use !== 'function') throw new ExtensionCheckFailed('Provider#use is gone');
  provider.use((ctx: Any, next: () => Promise<void>) => handling.run(ctx, next));

  const grantTypeAllowed = proto.grantTypeAllowed as (this: unknown, type: string) => boolean;
  proto.grantTypeAllowed = function keyholdGrantTypeAllowed(this: unknown, type: string): boolean {
    const allowed = grantTypeAllowed.call(this, type);
    const oidc = handling.getStore()?.oidc;
    if (!allowed && oidc && GRANT_ASKED[oidc.route]?.(oidc.params) === type) throw grantRefusal(type);
    return allowed;
  };

  const responseTypeAllowed = proto.responseTypeAllowed as (this: unknown, type: string) => boolean;
  proto.responseTypeAllowed = function keyholdResponseTypeAllowed(this: unknown, type: string): boolean {
    const allowed = responseTypeAllowed.call(this, type);
    const oidc = handling.getStore()?.oidc;
    if (!allowed && oidc && RESPONSE_TYPE_ROUTES.has(oidc.route)) {
      throw new errors.UnauthorizedClient(`this app may not use the response type ${type}: add it to its response types (and its grant type to its grant types)`);
    }
    return allowed;
  };
}

/**
 * Proves the extension takes hold on this provider, at start (after
 * applyUnauthorizedClient): unauthorized_client for the type a request names,
 * a plain no for a type asked in passing or outside a request.
 */
export function checkUnauthorizedClient(provider: Any): void {
  const client = new provider.Client({ client_id: 'keyhold-self-check', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: ['https://keyhold.invalid/cb'] });
  const during = (route: string, params: Record<string, string>, ask: () => boolean): unknown => {
    try {
      return handling.run({ oidc: { route, params } }, ask);
    } catch (e) {
      return e;
    }
  };
  const refused = (answer: unknown) => answer instanceof errors.UnauthorizedClient;
  const ok =
    refused(during('token', { grant_type: 'refresh_token' }, () => client.grantTypeAllowed('refresh_token'))) &&
    refused(during('device_authorization', {}, () => client.grantTypeAllowed(DEVICE_CODE_GRANT))) &&
    refused(during('authorization', {}, () => client.responseTypeAllowed('id_token'))) &&
    during('token', { grant_type: 'authorization_code' }, () => client.grantTypeAllowed('refresh_token')) === false &&
    during('token', { grant_type: 'authorization_code' }, () => client.grantTypeAllowed('authorization_code')) === true &&
    client.grantTypeAllowed('refresh_token') === false;
  if (!ok) throw new ExtensionCheckFailed('Client.prototype.grantTypeAllowed/responseTypeAllowed no longer decide what an app may use (unauthorized_client)');
}
