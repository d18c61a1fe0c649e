// The redirect URI an upstream sends the person back to: one per provider, always
// under KEYHOLD_ISSUER (the caller hands it in from the configuration), never from
// a request's header. The login serves it (src/login/routes.ts); the API answers
// it as the URI to register at the upstream.

export function idpCallbackUrl(issuer: string, idpId: string): string {
  return `${issuer}/ui/login/idp/${encodeURIComponent(idpId)}/callback`;
}
