// How sure Keyhold is of who logged in: RFC 8176 `amr` values (pwd, hwk, mfa)
// from the login (src/login/flow.ts AMR), and the `acr` Keyhold documents
// for them (docs/security-keys.md), advertised in discovery as
// acr_values_supported. ID tokens carry both from the session; access tokens
// (and so introspection) get them from the code or refresh token they were
// issued for (extraTokenClaims: the library keeps amr/acr on those, not on
// access tokens).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** The password alone. */
export const ACR_PASSWORD = 'urn:keyhold:acr:pwd';
/** The password and a second factor (a security key). */
export const ACR_MFA = 'urn:keyhold:acr:mfa';
export const ACR_VALUES = [ACR_PASSWORD, ACR_MFA] as const;

export const acrOf = (amr: readonly string[]): string => (amr.includes('mfa') ? ACR_MFA : ACR_PASSWORD);

/** extraTokenClaims: amr and acr of the login a user's access token comes from. */
export function authenticationClaims(ctx: Any, token: Any): { amr: string[]; acr: string } | undefined {
  if (!token?.accountId) return undefined;
  const entities = ctx?.oidc?.entities ?? {};
  const source = entities.AuthorizationCode ?? entities.RefreshToken ?? entities.DeviceCode ?? ctx?.oidc?.session;
  const amr: unknown = source?.amr;
  if (!Array.isArray(amr) || amr.length === 0) return undefined;
  return { amr: amr.map(String), acr: typeof source.acr === 'string' ? source.acr : acrOf(amr.map(String)) };
}
