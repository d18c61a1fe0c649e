// Events of a user's address verification (on the user's aggregate): a code
// handed out for one address (only its hash), the address verified, a wrong
// code tried. A change of address (user.human.changed) makes the new one
// unverified and retires the code sent to the old one.
export interface EmailEventPayloads {
  /**
   * SetEmail / ResendEmailCode (or AddHumanUser, UpdateHumanUser with an address):
   * a new code for `email`, replacing any earlier one. `codeHash`: SHA-256 of
   * the code under the user's id and the address (domain/user/email-codes.ts);
   * `delivery`: sent by mail, or returned to the caller; `expiresAt`: ISO-8601.
   */
  'user.email.code.added': { codeHash: string; email: string; expiresAt: string; delivery: 'mail' | 'returned' };
  /**
   * The address is the user's: by its code (`by: 'code'`), or set verified by
   * an administrator (`by: 'administrator'`), or by a provider trusted for it.
   */
  'user.email.verified': { email: string; by: 'code' | 'administrator' | 'provider' };
  /** A wrong, spent or expired code was tried: it counts toward the code's end. */
  'user.email.code.check.failed': Record<string, never>;
}
