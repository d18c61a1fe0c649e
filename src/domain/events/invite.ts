// Events of a user's invitation and self-registration (on the user's aggregate): a code handed out
// (only its hash, never the code), the code used, a wrong code tried. An
// invitation asks the user to set a first credential (a password or a
// passkey), or, for a user who already signs in with a password, to enrol a
// security key in the user's own browser.
export interface InviteEventPayloads {
  /**
   * CreateInviteCode / ResendInviteCode: a new code, replacing any earlier one.
   * `codeHash`: SHA-256 of the code under the user's id (domain/invite/codes.ts);
   * `purpose`: what the invitation's page offers; `delivery`: sent by mail, or
   * returned to the caller; `expiresAt`: ISO-8601.
   */
  'user.invite.code.added': { codeHash: string; expiresAt: string; purpose: 'credential' | 'key'; delivery: 'mail' | 'returned' };
  /** The code was used: it never works again. */
  'user.invite.code.used': Record<string, never>;
  /** A wrong, spent or expired code was tried for the user: the audit trail of guessing. */
  'user.invite.code.check.failed': Record<string, never>;
  /**
   * The person registered themselves at an app's login (in the same write as
   * user.human.added); `verificationRequired`: no login until the address is verified.
   */
  'user.self.registered': { verificationRequired: boolean };
}
