// Events of a user's authenticator app (TOTP), on the user's aggregate. They
// say only that something happened to the user's TOTP `totpId`: the secret is
// never in an event (it is sealed in totp_secrets, src/store/totp-secrets.ts),
// nor the code typed.
export interface TotpEventPayloads {
  /** A registration started (pending); it replaces a pending one of the user. */
  'user.totp.added': { totpId: string };
  /** A right code made it ready: the user's second factor from now on; `step`: that code's time step, spent by it. */
  'user.totp.verified': { totpId: string; step?: number };
  'user.totp.removed': { totpId: string };
  /** A code accepted at a login (each time step once: `step`, the one it claimed). */
  'user.totp.used': { totpId: string; clientId: string; step?: number };
  /** A wrong or already used code at a login: the audit trail of guessing. */
  'user.totp.check.failed': { totpId: string; clientId: string };
}
