// Clients of the OpenID Provider are the apps of the management API, read from
// the read model at each lookup (adapter.ts): a new app logs in at once, a
// removed app or a regenerated secret takes effect at once. This maps an app's
// stored configuration (seed spec §2.1, domain/oidc/types.ts) to oidc-provider
// client metadata; Keyhold's own fields travel as `keyhold_*` extra metadata
// for the hooks in configuration.ts and extensions.ts.
import type { AppView } from '../../queries/read-model.js';
import type { OidcConfig } from '../../domain/oidc/types.js';
import { scopeAllowList } from './api-audience.js';

/** Extra client metadata oidc-provider keeps for Keyhold (configuration.ts `extraClientMetadata`). */
export const KEYHOLD_CLIENT_PROPERTIES = [
  'keyhold_project_id',
  'keyhold_org_id',
  'keyhold_app_id',
  'keyhold_dev_mode',
  'keyhold_redirect_globs',
  'keyhold_access_token_type',
  'keyhold_access_token_role_assertion',
  'keyhold_id_token_role_assertion',
  'keyhold_id_token_userinfo_assertion',
  'keyhold_clock_skew_seconds',
  'keyhold_additional_origins',
  'keyhold_skip_native_success_page',
  // The app's type as the API names it (web, user_agent, native): application_type knows only web and native.
  'keyhold_app_type',
  // A machine user as a client_credentials client (machine-clients.ts).
  'keyhold_machine_user_id',
] as const;

export interface KeyholdClientExtras {
  keyhold_project_id: string;
  keyhold_org_id: string;
  keyhold_app_id: string;
  keyhold_dev_mode: boolean;
  keyhold_redirect_globs: string[];
  keyhold_access_token_type: 'jwt' | 'opaque';
  keyhold_access_token_role_assertion: boolean;
  keyhold_id_token_role_assertion: boolean;
  keyhold_id_token_userinfo_assertion: boolean;
  keyhold_clock_skew_seconds: number;
  keyhold_additional_origins: string[];
  keyhold_skip_native_success_page: boolean;
  keyhold_app_type: AppTypeName;
}

/** An app's type as the metrics label it (metrics.ts). */
export type AppTypeName = 'web' | 'user_agent' | 'native';
const APP_TYPE: Readonly<Record<OidcConfig['appType'], AppTypeName>> = {
  OIDC_APP_TYPE_WEB: 'web',
  OIDC_APP_TYPE_USER_AGENT: 'user_agent',
  OIDC_APP_TYPE_NATIVE: 'native',
};

/** The response types Keyhold's enum names, as OAuth spells them. */
const RESPONSE_TYPE = {
  OIDC_RESPONSE_TYPE_CODE: 'code',
  OIDC_RESPONSE_TYPE_ID_TOKEN: 'id_token',
  OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN: 'id_token token',
} as const;

const GRANT_TYPE: Record<string, string | undefined> = {
  OIDC_GRANT_TYPE_AUTHORIZATION_CODE: 'authorization_code',
  OIDC_GRANT_TYPE_IMPLICIT: 'implicit',
  OIDC_GRANT_TYPE_REFRESH_TOKEN: 'refresh_token',
  // RFC 8628 (configuration.ts features.deviceFlow; extensions.ts 6.).
  OIDC_GRANT_TYPE_DEVICE_CODE: 'urn:ietf:params:oauth:grant-type:device_code',
};

const AUTH_METHOD = {
  OIDC_AUTH_METHOD_TYPE_BASIC: 'client_secret_basic',
  OIDC_AUTH_METHOD_TYPE_POST: 'client_secret_post',
  OIDC_AUTH_METHOD_TYPE_NONE: 'none',
  OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT: 'private_key_jwt',
} as const;

/** Every response type oidc-provider is configured to know (configuration.ts). */
export const RESPONSE_TYPES = ['code', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token', 'none'];

/**
 * The response types an app may use: those registered, and the hybrid ones
 * ("code id_token", "code id_token token") only when both the code and that
 * implicit type are registered and both grants are too.
 */
export function responseTypesOf(config: OidcConfig): string[] {
  const code = config.responseTypes.includes('OIDC_RESPONSE_TYPE_CODE') && config.grantTypes.includes('OIDC_GRANT_TYPE_AUTHORIZATION_CODE');
  // CODE stands for the device grant too (validate.ts): a device-only app uses no authorization endpoint.
  const types: string[] = config.responseTypes.map((t) => RESPONSE_TYPE[t]).filter((t) => t !== 'code' || code);
  const implicit = config.grantTypes.includes('OIDC_GRANT_TYPE_IMPLICIT');
  if (code && implicit && types.includes('id_token')) types.push('code id_token');
  if (code && implicit && types.includes('id_token token')) types.push('code id_token token');
  return types;
}

/** True when the URI holds a dev-mode glob (`*`), matched by globMatches instead of exactly. */
export const isGlob = (uri: string) => uri.includes('*');

/** ZITADEL's dev-mode glob: `*` stands for any run of characters other than `/`. */
export function globMatches(pattern: string, value: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return re.test(value);
}

/** The error oidc-provider answers when the app exists but cannot log in yet (adapter.ts). */
export class UnsupportedClient extends Error {
  constructor(readonly description: string) {
    super(description);
  }
}

/** Whether the app authenticates with private_key_jwt: its client metadata then needs its keys (adapter.ts). */
export const usesAppKeys = (app: AppView) => app.config?.authMethodType === 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT';

/**
 * oidc-provider client metadata for an app; undefined when it is no OIDC app.
 * `jwks`: a private_key_jwt app's public keys not expired (AddAppKey).
 */
export function clientMetadata(app: AppView, jwks: readonly Record<string, unknown>[] = []): Record<string, unknown> | undefined {
  const config = app.config;
  if (!config || !app.clientId) return undefined;
  const method = AUTH_METHOD[config.authMethodType];
  const redirects = config.redirectUris;
  const globs = config.devMode ? redirects.filter(isGlob) : [];
  const extras: KeyholdClientExtras = {
    keyhold_project_id: app.projectId,
    keyhold_org_id: app.orgId,
    keyhold_app_id: app.id,
    keyhold_dev_mode: config.devMode,
    keyhold_redirect_globs: globs,
    keyhold_access_token_type: config.accessTokenType === 'OIDC_TOKEN_TYPE_JWT' ? 'jwt' : 'opaque',
    keyhold_access_token_role_assertion: config.accessTokenRoleAssertion,
    keyhold_id_token_role_assertion: config.idTokenRoleAssertion,
    keyhold_id_token_userinfo_assertion: config.idTokenUserinfoAssertion,
    keyhold_clock_skew_seconds: Math.floor(config.clockSkewMs / 1000),
    keyhold_additional_origins: config.additionalOrigins,
    keyhold_skip_native_success_page: config.skipNativeAppSuccessPage,
    keyhold_app_type: APP_TYPE[config.appType],
  };
  return {
    client_id: app.clientId,
    // The hash, never the secret: compareClientSecret (extensions.ts) verifies against it.
    ...(method === 'none' || method === 'private_key_jwt' ? {} : { client_secret: app.clientSecretHash ?? undefined }),
    ...(method === 'private_key_jwt' ? { jwks: { keys: jwks.map((k) => ({ ...k })) } } : {}),
    client_name: app.name,
    application_type: config.appType === 'OIDC_APP_TYPE_NATIVE' ? 'native' : 'web',
    redirect_uris: redirects.filter((u) => !globs.includes(u)),
    post_logout_redirect_uris: config.postLogoutRedirectUris,
    response_types: responseTypesOf(config),
    grant_types: config.grantTypes.map((g) => GRANT_TYPE[g]).filter((g): g is string => g !== undefined),
    token_endpoint_auth_method: method,
    // Introspection and revocation authenticate the same way as the token endpoint.
    id_token_signed_response_alg: 'RS256',
    // The scopes it may ask for: the API audience only when allowed (SetAppAPIAccess; api-audience.ts).
    scope: scopeAllowList(app.apiAccess),
    // auth_time in every ID token (OIDC makes it optional without max_age; apps check it).
    require_auth_time: true,
    // Back-Channel Logout 1.0 (backchannel-logout.ts): the URI fixed by the app's registration, and every token names its session.
    ...(config.backChannelLogoutUri ? { backchannel_logout_uri: config.backChannelLogoutUri, backchannel_logout_session_required: true } : {}),
    ...extras,
  };
}
