// Vocabulary of OIDC applications: the enum value names of the schema
// (proto/keyhold/management/v1/app.proto, seed spec §2.1), the request shape the
// API layer hands to the domain, and the normalized configuration that is stored.
//
// Enums are carried by NAME, not number: names are what REST clients send and
// what the stored record keeps, so a renumbering in the schema never silently
// changes the meaning of stored data.

// Each list is the complete set of known values; the first entry is the schema's
// zero value, which is also the default (proto3: an absent enum reads as zero).
export const OIDC_RESPONSE_TYPES = [
  'OIDC_RESPONSE_TYPE_CODE',
  'OIDC_RESPONSE_TYPE_ID_TOKEN',
  'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN',
] as const;
export type OidcResponseType = (typeof OIDC_RESPONSE_TYPES)[number];

export const OIDC_GRANT_TYPES = [
  'OIDC_GRANT_TYPE_AUTHORIZATION_CODE',
  'OIDC_GRANT_TYPE_IMPLICIT',
  'OIDC_GRANT_TYPE_REFRESH_TOKEN',
  'OIDC_GRANT_TYPE_DEVICE_CODE',
] as const;
export type OidcGrantType = (typeof OIDC_GRANT_TYPES)[number];

export const OIDC_APP_TYPES = [
  'OIDC_APP_TYPE_WEB',
  'OIDC_APP_TYPE_USER_AGENT',
  'OIDC_APP_TYPE_NATIVE',
] as const;
export type OidcAppType = (typeof OIDC_APP_TYPES)[number];

export const OIDC_AUTH_METHOD_TYPES = [
  'OIDC_AUTH_METHOD_TYPE_BASIC',
  'OIDC_AUTH_METHOD_TYPE_POST',
  'OIDC_AUTH_METHOD_TYPE_NONE',
  'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
] as const;
export type OidcAuthMethodType = (typeof OIDC_AUTH_METHOD_TYPES)[number];

export const OIDC_VERSIONS = ['OIDC_VERSION_1_0'] as const;
export type OidcVersion = (typeof OIDC_VERSIONS)[number];

export const OIDC_TOKEN_TYPES = ['OIDC_TOKEN_TYPE_BEARER', 'OIDC_TOKEN_TYPE_JWT'] as const;
export type OidcTokenType = (typeof OIDC_TOKEN_TYPES)[number];

/** A protobuf Duration as the API layer hands it over. */
export interface DurationInput {
  seconds: bigint;
  nanos: number;
}

/**
 * The AddOIDCApp request after the API layer converted it from protobuf/JSON.
 *
 * Enum fields carry the value NAME ("OIDC_APP_TYPE_WEB"); a numeric value the
 * schema does not know arrives as the string of the number ("7"). An absent
 * scalar enum arrives as its zero value, which is the default. Empty enum lists
 * mean "use the default list". Nothing here is trusted: validateOidcApp checks it all.
 */
export interface OidcAppInput {
  name: string;
  redirectUris: readonly string[];
  responseTypes: readonly string[];
  grantTypes: readonly string[];
  appType: string;
  authMethodType: string;
  postLogoutRedirectUris: readonly string[];
  version: string;
  devMode: boolean;
  accessTokenType: string;
  accessTokenRoleAssertion: boolean;
  idTokenRoleAssertion: boolean;
  idTokenUserinfoAssertion: boolean;
  clockSkew?: DurationInput;
  additionalOrigins: readonly string[];
  skipNativeAppSuccessPage: boolean;
  /** OpenID Connect Back-Channel Logout 1.0: where the app hears a session ended; empty: it does not. */
  backChannelLogoutUri?: string;
}

/**
 * The validated, normalized configuration: defaults applied, `name` trimmed and
 * NFC, every list deduplicated (first occurrence wins, order kept), `clockSkew`
 * in whole milliseconds. Redirect URIs are stored as the browser serializes
 * them (URL.href); origins are accepted only in their serialized form, so they
 * are kept as sent (uri-rules.ts).
 */
export interface OidcConfig {
  name: string;
  redirectUris: string[];
  responseTypes: OidcResponseType[];
  grantTypes: OidcGrantType[];
  appType: OidcAppType;
  authMethodType: OidcAuthMethodType;
  postLogoutRedirectUris: string[];
  version: OidcVersion;
  devMode: boolean;
  accessTokenType: OidcTokenType;
  accessTokenRoleAssertion: boolean;
  idTokenRoleAssertion: boolean;
  idTokenUserinfoAssertion: boolean;
  clockSkewMs: number;
  additionalOrigins: string[];
  skipNativeAppSuccessPage: boolean;
  /** Where the app receives logout tokens (Back-Channel Logout 1.0); '' when none. Absent in configs stored before it existed. */
  backChannelLogoutUri?: string;
}
