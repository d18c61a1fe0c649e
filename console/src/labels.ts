// Human labels for the OIDC enums, next to their wire names.
import {
  OIDCAppType,
  OIDCAuthMethodType,
  OIDCGrantType,
  OIDCResponseType,
  OIDCTokenType,
  OIDCVersion,
} from '../../gen/keyhold/management/v1/app_pb.js';

export interface Choice<T extends number> {
  value: T;
  label: string;
  /** The enum value's name on the wire (REST JSON). */
  wire: string;
  hint?: string;
}

export const APP_TYPES: Choice<OIDCAppType>[] = [
  { value: OIDCAppType.OIDC_APP_TYPE_WEB, wire: 'OIDC_APP_TYPE_WEB', label: 'Web (server-side application)' },
  { value: OIDCAppType.OIDC_APP_TYPE_USER_AGENT, wire: 'OIDC_APP_TYPE_USER_AGENT', label: 'User agent (single-page app in the browser)' },
  { value: OIDCAppType.OIDC_APP_TYPE_NATIVE, wire: 'OIDC_APP_TYPE_NATIVE', label: 'Native (desktop or mobile app)' },
];

export const AUTH_METHODS: Choice<OIDCAuthMethodType>[] = [
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC, wire: 'OIDC_AUTH_METHOD_TYPE_BASIC', label: 'Basic (client secret in the Authorization header)' },
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_POST, wire: 'OIDC_AUTH_METHOD_TYPE_POST', label: 'Post (client secret in the request body)' },
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE, wire: 'OIDC_AUTH_METHOD_TYPE_NONE', label: 'None (public client, PKCE)' },
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT, wire: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT', label: 'Private key JWT' },
];

export const RESPONSE_TYPES: Choice<OIDCResponseType>[] = [
  { value: OIDCResponseType.OIDC_RESPONSE_TYPE_CODE, wire: 'OIDC_RESPONSE_TYPE_CODE', label: 'Code' },
  { value: OIDCResponseType.OIDC_RESPONSE_TYPE_ID_TOKEN, wire: 'OIDC_RESPONSE_TYPE_ID_TOKEN', label: 'ID token' },
  { value: OIDCResponseType.OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN, wire: 'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN', label: 'ID token and access token' },
];

export const GRANT_TYPES: Choice<OIDCGrantType>[] = [
  { value: OIDCGrantType.OIDC_GRANT_TYPE_AUTHORIZATION_CODE, wire: 'OIDC_GRANT_TYPE_AUTHORIZATION_CODE', label: 'Authorization code' },
  { value: OIDCGrantType.OIDC_GRANT_TYPE_IMPLICIT, wire: 'OIDC_GRANT_TYPE_IMPLICIT', label: 'Implicit' },
  { value: OIDCGrantType.OIDC_GRANT_TYPE_REFRESH_TOKEN, wire: 'OIDC_GRANT_TYPE_REFRESH_TOKEN', label: 'Refresh token' },
  { value: OIDCGrantType.OIDC_GRANT_TYPE_DEVICE_CODE, wire: 'OIDC_GRANT_TYPE_DEVICE_CODE', label: 'Device code' },
];

export const VERSIONS: Choice<OIDCVersion>[] = [{ value: OIDCVersion.OIDC_VERSION_1_0, wire: 'OIDC_VERSION_1_0', label: 'OpenID Connect 1.0' }];

export const TOKEN_TYPES: Choice<OIDCTokenType>[] = [
  { value: OIDCTokenType.OIDC_TOKEN_TYPE_BEARER, wire: 'OIDC_TOKEN_TYPE_BEARER', label: 'Bearer (opaque)' },
  { value: OIDCTokenType.OIDC_TOKEN_TYPE_JWT, wire: 'OIDC_TOKEN_TYPE_JWT', label: 'JWT' },
];

export function labelOf<T extends number>(choices: Choice<T>[], value: T): string {
  return choices.find((c) => c.value === value)?.label ?? `unknown (${value})`;
}

/** Short label (the part before any parenthesis). */
export function shortLabelOf<T extends number>(choices: Choice<T>[], value: T): string {
  return labelOf(choices, value).replace(/\s*\(.*\)$/, '');
}
