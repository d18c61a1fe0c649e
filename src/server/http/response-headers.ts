// Headers on every API answer — REST, Connect, gRPC-Web, gRPC (both paths),
// errors and health checks included: the one place this policy lives.
//
// - `cache-control: no-store` on ALL of them, not only on the answers that carry
//   a secret (AddOIDCApp, RegenerateOIDCClientSecret, AddPersonalAccessToken):
//   no Keyhold API answer is meant to be kept by a browser, proxy or disk cache —
//   reads return personal data too — and a rule by method would have to be
//   remembered for every future method that returns a credential.
// - `x-content-type-options: nosniff`: a browser must take the declared JSON or
//   protobuf type, never guess HTML or script from client-controlled text in it.
// The console's static files set their own cache-control (console.ts).
export const API_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});
