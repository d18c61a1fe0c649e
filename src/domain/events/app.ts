// Events of an OIDC application. AddOIDCApp writes `app.added` and
// `app.oidc.config.added` together, at sequences 1 and 2 of a new aggregate.
import type { OidcConfig } from '../oidc/types.js';

export interface AppEventPayloads {
  'app.added': { projectId: string; name: string };
  /** The validated configuration as stored (domain/oidc validateOidcApp); the secret only as its hash. */
  'app.oidc.config.added': { clientId: string; clientSecretHash: string | null; config: OidcConfig };
  'app.oidc.secret.changed': { clientSecretHash: string };
  'app.removed': { projectId: string };
  /** UpdateApp: the new name (trimmed, NFC). */
  'app.changed': { name: string };
  /**
   * UpdateOIDCAppConfig: the whole validated configuration (name unchanged), and
   * what became of the client credential (its secret): `kept` (the method needs one, the app has
   * one), `dropped` (the method needs none; the stored hash is removed),
   * `needed` (the method needs one and the app has none: RegenerateOIDCClientSecret
   * makes it), `none` (needs none, had none).
   */
  'app.oidc.config.changed': { config: OidcConfig; clientCredential: AppSecretAfterChange };
  'app.deactivated': Record<string, never>;
  'app.reactivated': Record<string, never>;
  /**
   * AddAppKey: a key of a private_key_jwt app. Only the public key
   * (a JWK with its kid = keyId); the private key went to the caller once.
   */
  'app.key.added': { keyId: string; type: AppKeyType; publicKey: PublicJwk; expiresAt: string };
  /** RemoveAppKey: assertions signed by the key are refused from now on. */
  'app.key.removed': { keyId: string };
  /**
   * SetAppAPIAccess (an instance administrator's decision): whether the app may
   * obtain access tokens for Keyhold's own API (the scope urn:keyhold:iam:api:aud).
   */
  'app.api.access.changed': { allowed: boolean };
}

/** The kinds of app key (ZITADEL's KEY_TYPE_JSON: a JSON key file). */
export type AppKeyType = 'KEY_TYPE_JSON';

/** A public JSON Web Key as stored (RFC 7517): no private members. */
export type PublicJwk = { kty: string; kid: string; alg?: string; use?: string } & Record<string, string>;

export type AppSecretAfterChange = 'kept' | 'dropped' | 'needed' | 'none';
