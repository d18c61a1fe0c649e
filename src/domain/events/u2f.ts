// Events of one security key (WebAuthn credential): registration started
// (pending, with its challenge and expiry) → verified → removed, or started →
// replaced (the user started too many others).
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
}
