import type { OidcAppInput } from '../../../src/domain/oidc/types.js';

/** A valid request as the API layer would hand it over; tests override what they exercise. */
export function request(overrides: Partial<OidcAppInput> = {}): OidcAppInput {
  return {
    name: 'Shop',
    redirectUris: ['https://shop.example/cb'],
    responseTypes: [],
    grantTypes: [],
    appType: 'OIDC_APP_TYPE_WEB',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    postLogoutRedirectUris: [],
    version: 'OIDC_VERSION_1_0',
    devMode: false,
    accessTokenType: 'OIDC_TOKEN_TYPE_BEARER',
    accessTokenRoleAssertion: false,
    idTokenRoleAssertion: false,
    idTokenUserinfoAssertion: false,
    additionalOrigins: [],
    skipNativeAppSuccessPage: false,
    ...overrides,
  };
}
