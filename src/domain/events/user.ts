// Events of a user (human or machine) and of its personal access tokens.
import type { EmailEventPayloads } from './email.js';
import type { InviteEventPayloads } from './invite.js';
import type { TotpEventPayloads } from './totp.js';

/** The user's authenticator app (./totp.ts) and invitation (./invite.ts) are part of the user's aggregate. */
export interface UserEventPayloads extends TotpEventPayloads, InviteEventPayloads, EmailEventPayloads {
  'user.human.added': {
    username: string;
    givenName: string;
    familyName: string;
    displayName: string;
    email: string;
  };
  /** `accessTokenType`: the kind of access token client credentials get; absent in older events: BEARER. */
  'user.machine.added': { username: string; name: string; description: string; accessTokenType?: MachineAccessTokenType };
  /**
   * A password set: at AddHumanUser (in the same write), by SetPassword, or at
   * bootstrap. `passwordHash`: argon2id PHC string (domain/identity/passwords.ts);
   * the password itself is never stored. `changeRequired`: the user must choose
   * a new one at the next login.
   */
  'user.password.changed': { passwordHash: string; changeRequired: boolean };
  /**
   * PasswordReset: a reset link for the user was mailed (`mail`) or its code
   * answered to the caller (`returned`). The code lives in the one-time code
   * store, only as a hash, never here; the creator is who asked.
   */
  'user.password.reset.requested': { delivery: 'mail' | 'returned' };
  /**
   * A login through the OpenID Provider's login UI (src/login/):
   * the app's client id and how the user authenticated (`amr`, e.g. ["pwd"]).
   */
  'user.login.succeeded': { clientId: string; amr: string[] };
  /** A wrong password typed at the login for this user (the audit trail of guessing). */
  'user.password.check.failed': { clientId: string };
  /**
   * The login's throttle engaged for this user (src/server/oidc/throttle.ts): by its own
   * wrong passwords (`account`) or by its client IP's (`ip`, then `clientIp`). Never the password.
   */
  'user.login.throttled': { clientId: string; by: 'account' | 'ip'; clientIp?: string; waitSeconds: number };
  /**
   * The OpenID Provider stored the user's grant for an app (consent, or a first-party login):
   * the grant's id (a storage key, not a credential) and the scopes granted so far.
   */
  'user.oidc.grant.saved': { grantId: string; clientId: string; scope: string };
  /**
   * The grant and every token in it revoked: at the revocation endpoint (`revocation`), a reused
   * refresh token or code (`reuse`), or a logout (`logout`).
   */
  'user.oidc.grant.revoked': { grantId: string; clientId: string; reason: 'revocation' | 'reuse' | 'logout' | 'other' };
  /** One token destroyed (revocation endpoint, reuse detection): its kind and grant, never the token or its id. */
  'user.oidc.token.revoked': { grantId: string; clientId: string; tokenType: 'access_token' | 'refresh_token' };
  /** `tokenHash`: SHA-256 of the token (base64url); the token itself is never stored. */
  'user.pat.added': { tokenId: string; tokenHash: string; expiresAt: string | null };
  /** RemovePersonalAccessToken: the token stops authenticating (every process within the caller cache's TTL). */
  'user.pat.removed': { tokenId: string };
  /** UpdateHumanUser: the human's profile and e-mail as they are now (stored forms). */
  'user.human.changed': { username: string; givenName: string; familyName: string; displayName: string; email: string };
  /** The lifecycle: only an active user's tokens authenticate. */
  'user.deactivated': Record<string, never>;
  'user.reactivated': Record<string, never>;
  /**
   * LockUser, or the org's lockout policy (then `maxAttempts`: the threshold
   * the user's consecutive wrong passwords reached).
   */
  'user.locked': { maxAttempts?: number };
  'user.unlocked': Record<string, never>;
  /** RemoveUser: the user, its tokens and memberships go from the read model; its events stay. */
  'user.removed': Record<string, never>;
  /**
   * RemoveMySessions: the user ended every session and grant of its own — browser
   * sign-ins, codes, refresh and access tokens (projections/oidc-sessions.ts).
   * Personal access tokens are credentials, not sessions: they stay.
   */
  'user.sessions.ended': SessionsEnded;
  /**
   * One login session ended (the account page, RemoveUserSession): that
   * session and the grants it made; the apps it signed in to hear of it
   * (Back-Channel Logout). `sessionId`: the session's id as ListUserSessions names it.
   */
  'user.session.ended': { sessionId: string };
  /**
   * GenerateMachineSecret: the machine user's client credentials —
   * its client id (generated, kept when the secret is regenerated) and the
   * secret's hash (domain/oidc hashClientSecret); the secret is never stored.
   */
  'user.machine.secret.set': { clientId: string; clientSecretHash: string };
  /** RemoveMachineSecret: the client credentials stop authenticating. */
  'user.machine.secret.removed': Record<string, never>;
  /**
   * Recovery codes (for a lost key): a new set, replacing any earlier one.
   * Only the codes' hashes (domain/user/recovery-codes.ts), never the codes.
   */
  'user.recovery.codes.generated': { codeHashes: string[] };
  /** The code at `index` of the current set answered a login in place of a key: it never works again. */
  'user.recovery.code.used': { index: number; clientId: string };
  /** A wrong (or spent) recovery code typed at the login: the audit trail of guessing, counted by the throttle. */
  'user.recovery.code.check.failed': { clientId: string };
  /**
   * A security key or passkey the user removed on the account page while the org requires a
   * second factor: written on the user beside the removal itself, so that two such removals at
   * once meet on the user's sequence and the later one is decided again (one factor stays).
   */
  'user.factor.removed': { kind: 'u2f' | 'passkey'; id: string };
  /** RemoveAllU2F: with the keys go the codes (the next first key brings a new set). */
  'user.recovery.codes.removed': Record<string, never>;
  /**
   * SetUserMetadata, BulkSetUserMetadata (one event per key, in one write): the
   * key (NFC) and its value, base64 (1 to 2048 bytes). Personal data: never logged.
   */
  'user.metadata.set': { key: string; value: string };
  /** RemoveUserMetadata, BulkRemoveUserMetadata (one event per key, in one write). */
  'user.metadata.removed': { key: string };
}

/** The access token a machine user gets by client credentials: opaque (BEARER) or a signed JWT. */
export type MachineAccessTokenType = 'BEARER' | 'JWT';

/** Every session of the user ended; `keep`: the one session that stays (ending the others from it). */
export interface SessionsEnded {
  keep?: string;
}
