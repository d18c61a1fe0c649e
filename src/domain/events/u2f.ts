// Events of one security key (WebAuthn credential): registration started
// (pending, with its challenge and expiry) → verified → removed, or started →
// replaced (the user started too many others). Each login with a ready key is
// u2f.used (its new counter) or, for a counter that went back, u2f.signcount.refused.
export interface U2fEventPayloads {
  'u2f.registration.started': { userId: string; rpId: string; challenge: string; expiresAt: string };
  /** Ended unverified because the user started registration `by` while at the cap of pending ones. */
  'u2f.registration.replaced': { userId: string; by: string };
  'u2f.verified': {
    userId: string;
    tokenName: string;
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
    userVerified: boolean;
    rpId: string;
  };
  'u2f.removed': { userId: string };
  /** The user (or an administrator) gave the key another name. */
  'u2f.renamed': { userId: string; tokenName: string };
  /** The key answered a login (use-u2f): its signature counter now stands at `signCount`. */
  'u2f.used': { userId: string; signCount: number; clientId: string };
  /**
   * A login refused because the key's counter did not increase (a cloned key,
   * WebAuthn §6.1.1): `presentedSignCount` ≤ `storedSignCount`, not both 0.
   */
  'u2f.signcount.refused': { userId: string; storedSignCount: number; presentedSignCount: number; clientId: string };
}
