// Human labels for the OIDC enums, next to their wire names; getters, so a
// label is in the language of the moment it is read.
import {
  OIDCAppType,
  OIDCAuthMethodType,
  OIDCGrantType,
  OIDCResponseType,
  OIDCTokenType,
  OIDCVersion,
} from '../../gen/keyhold/management/v1/app_pb.js';
import { L } from './i18n.js';

export interface Choice<T extends number> {
  value: T;
  label: string;
  /** The enum value's name on the wire (REST JSON). */
  wire: string;
  hint?: string;
}

export const APP_TYPES: Choice<OIDCAppType>[] = [
  { value: OIDCAppType.OIDC_APP_TYPE_WEB, wire: 'OIDC_APP_TYPE_WEB', get label() { return L.choice_OIDC_APP_TYPE_WEB; } },
  { value: OIDCAppType.OIDC_APP_TYPE_USER_AGENT, wire: 'OIDC_APP_TYPE_USER_AGENT', get label() { return L.choice_OIDC_APP_TYPE_USER_AGENT; } },
  { value: OIDCAppType.OIDC_APP_TYPE_NATIVE, wire: 'OIDC_APP_TYPE_NATIVE', get label() { return L.choice_OIDC_APP_TYPE_NATIVE; } },
];

export const AUTH_METHODS: Choice<OIDCAuthMethodType>[] = [
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC, wire: 'OIDC_AUTH_METHOD_TYPE_BASIC', get label() { return L.choice_OIDC_AUTH_METHOD_TYPE_BASIC; } },
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_POST, wire: 'OIDC_AUTH_METHOD_TYPE_POST', get label() { return L.choice_OIDC_AUTH_METHOD_TYPE_POST; } },
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE, wire: 'OIDC_AUTH_METHOD_TYPE_NONE', get label() { return L.choice_OIDC_AUTH_METHOD_TYPE_NONE; } },
  { value: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT, wire: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT', get label() { return L.choice_OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT; } },
];

export const RESPONSE_TYPES: Choice<OIDCResponseType>[] = [
  { value: OIDCResponseType.OIDC_RESPONSE_TYPE_CODE, wire: 'OIDC_RESPONSE_TYPE_CODE', get label() { return L.choice_OIDC_RESPONSE_TYPE_CODE; } },
  { value: OIDCResponseType.OIDC_RESPONSE_TYPE_ID_TOKEN, wire: 'OIDC_RESPONSE_TYPE_ID_TOKEN', get label() { return L.choice_OIDC_RESPONSE_TYPE_ID_TOKEN; } },
  { value: OIDCResponseType.OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN, wire: 'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN', get label() { return L.choice_OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN; } },
];

export const GRANT_TYPES: Choice<OIDCGrantType>[] = [
  { value: OIDCGrantType.OIDC_GRANT_TYPE_AUTHORIZATION_CODE, wire: 'OIDC_GRANT_TYPE_AUTHORIZATION_CODE', get label() { return L.choice_OIDC_GRANT_TYPE_AUTHORIZATION_CODE; } },
  { value: OIDCGrantType.OIDC_GRANT_TYPE_IMPLICIT, wire: 'OIDC_GRANT_TYPE_IMPLICIT', get label() { return L.choice_OIDC_GRANT_TYPE_IMPLICIT; } },
  { value: OIDCGrantType.OIDC_GRANT_TYPE_REFRESH_TOKEN, wire: 'OIDC_GRANT_TYPE_REFRESH_TOKEN', get label() { return L.choice_OIDC_GRANT_TYPE_REFRESH_TOKEN; } },
  { value: OIDCGrantType.OIDC_GRANT_TYPE_DEVICE_CODE, wire: 'OIDC_GRANT_TYPE_DEVICE_CODE', get label() { return L.choice_OIDC_GRANT_TYPE_DEVICE_CODE; } },
];

export const VERSIONS: Choice<OIDCVersion>[] = [{ value: OIDCVersion.OIDC_VERSION_1_0, wire: 'OIDC_VERSION_1_0', get label() { return L.choice_OIDC_VERSION_1_0; } }];

export const TOKEN_TYPES: Choice<OIDCTokenType>[] = [
  { value: OIDCTokenType.OIDC_TOKEN_TYPE_BEARER, wire: 'OIDC_TOKEN_TYPE_BEARER', get label() { return L.choice_OIDC_TOKEN_TYPE_BEARER; } },
  { value: OIDCTokenType.OIDC_TOKEN_TYPE_JWT, wire: 'OIDC_TOKEN_TYPE_JWT', get label() { return L.choice_OIDC_TOKEN_TYPE_JWT; } },
];

export function labelOf<T extends number>(choices: Choice<T>[], value: T): string {
  return choices.find((c) => c.value === value)?.label ?? `${L.unknown} (${value})`;
}

/** Short label (the part before any parenthesis). */
export function shortLabelOf<T extends number>(choices: Choice<T>[], value: T): string {
  return labelOf(choices, value).replace(/\s*\(.*\)$/, '');
}
