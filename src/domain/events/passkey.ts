// Events of one passkey: a discoverable WebAuthn credential with user
// verification, a first factor on its own. Registration started (pending,
// with its challenge and expiry) → verified → removed, or started → replaced
// (the user started too many others). Each login with a ready passkey is
// passkey.used (its new counter) or, for a counter that went back,
// passkey.signcount.refused.
export interface PasskeyEventPayloads {
  'passkey.registration.started': { userId: string; rpId: string; challenge: string; expiresAt: string };
  /** Ended unverified because the user started registration `by` while at the cap of pending ones. */
  'passkey.registration.replaced': { userId: string; by: string };
  'passkey.verified': {
    userId: string;
    passkeyName: string;
    /** base64url */
    credentialId: string;
    /** base64url COSE key */
    publicKey: string;
    algorithm: number;
    format: string;
    aaguid: string;
    signCount: number;
    transports: string[];
    backupEligible: boolean;
    backedUp: boolean;
    rpId: string;
  };
  'passkey.removed': { userId: string };
  /** The user (or an administrator) gave the passkey another name. */
  'passkey.renamed': { userId: string; passkeyName: string };
  /**
   * The passkey answered a login (use-passkey): its counter now stands at
   * `signCount`; `challenge` is the login's, so the same assertion cannot be
   * accepted twice even by an authenticator that keeps its counter at 0.
   */
  'passkey.used': { userId: string; signCount: number; challenge: string; clientId: string };
  /** A login refused because the counter did not increase (a cloned authenticator, WebAuthn §6.1.1). */
  'passkey.signcount.refused': { userId: string; storedSignCount: number; presentedSignCount: number; clientId: string };
}
