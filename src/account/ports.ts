// What the account page needs from the rest of Keyhold. Two kinds of port, as
// the login's (src/login/ports.ts):
// - the browser's login session (SessionPort, implemented by
//   src/server/oidc/account-session.ts, the one place that touches the
//   provider's Session and Grant objects): who is signed in, the apps they
//   signed in to, revoking one;
// - plain adapters (AccountPorts, adapters.ts) over the commands and queries,
//   acting as the user itself (self), as the API would for the same call.
import type { Language } from '../domain/i18n/language.js';

/** The browser's login session as the page sees it. */
export interface AccountSession {
  /** The session's public id: what the page's form token is bound to. */
  uid: string;
  accountId: string;
  /** When the user signed in (seconds since epoch). */
  loginTs: number;
}

/** An app the user signed in to: the provider's grants of it (one per sign-in that made one), as one. */
export interface AppGrant {
  clientId: string;
  appName: string;
}

export interface SessionPort {
  /** The signed-in session of this browser (the provider's session cookie); undefined: none, or its user is no longer active (the provider ends it then). */
  current(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<AccountSession | undefined>;
  /** The apps the user holds live grants of, every browser's. */
  grantsOf(accountId: string): Promise<AppGrant[]>;
  /** Deletes the user's grants of the app with every token issued under them: false when the user holds none. */
  revokeApp(accountId: string, clientId: string): Promise<boolean>;
}

/** One second factor as listed. */
export interface Factor {
  kind: 'key' | 'passkey' | 'totp';
  id: string;
  name: string | null;
  createdAt?: Date;
}

/** The account as the page shows it. */
export interface AccountView {
  id: string;
  username: string;
  givenName: string;
  familyName: string;
  displayName: string;
  email: string | null;
  emailVerified: boolean;
  /** Whether a code can be mailed: the address forms offer the code only then. */
  mailConfigured: boolean;
  hasPassword: boolean;
  factors: Factor[];
  codesLeft: number;
  mfaRequired: boolean;
  /** The user's links to identities at other providers (the provider's name, the upstream's id). */
  links: { idpId: string; name: string; subject: string }[];
}

/** `conflict`: refused by the account's state (the last second factor, a write at once), not by what was typed: 409. `gone`: what was to go is already gone. */
export type Done = { ok: true } | { ok: false; problem: string; conflict?: boolean; gone?: boolean };

export interface AccountPorts {
  /** The live human user's account; undefined: no such user, a machine, or not active. */
  view(userId: string): Promise<AccountView | undefined>;
  /** UpdateHumanUser's profile, as the user itself. */
  updateProfile(userId: string, profile: { givenName: string; familyName: string; displayName: string }, lang: Language): Promise<Done>;
  /** RemoveIDPLink as the user itself. */
  removeLink(userId: string, link: { idpId: string; subject: string }, lang: Language): Promise<Done>;
  /** RemoveU2F / RemovePasskey / RemoveTOTP as the user itself. */
  removeFactor(userId: string, factor: Pick<Factor, 'kind' | 'id'>, lang: Language): Promise<Done>;
  /** A security key's or passkey's new name, as the user itself. */
  renameFactor(userId: string, factor: Pick<Factor, 'kind' | 'id'>, name: string, lang: Language): Promise<Done>;
  /** Whether a code can be mailed (KEYHOLD_SMTP_URL): the address forms say what happens otherwise. */
  mailConfigured(): boolean;
  /** SetEmail as the user itself: the new address, unverified, and a code mailed to it when mail is configured. */
  changeAddress(userId: string, email: string, lang: Language): Promise<Done>;
  /** ResendEmailCode as the user itself (by mail). */
  sendAddressCode(userId: string, lang: Language): Promise<Done>;
  /** The code from the mail typed back: the address verified once; counted by the attempt budgets. */
  confirmAddress(userId: string, code: string, client: { address: string }, lang: Language): Promise<Done>;
  /** The user's login sessions, most recently used first. */
  sessions(userId: string): Promise<{ id: string; device: string; address: string; lastUsedAt: Date }[]>;
  /** RemoveUserSession as the user itself: the session, its grants and tokens end; its apps are told. */
  endSession(userId: string, sessionId: string, lang: Language): Promise<Done>;
  /** RemoveOtherUserSessions as the user itself: every session but `currentSessionId` ends. */
  endOtherSessions(userId: string, currentSessionId: string, lang: Language): Promise<Done>;
  /** GenerateRecoveryCodes as the user itself: the new set (the old one no longer works), or the refusal in the user's words. */
  regenerateCodes(userId: string, lang: Language): Promise<{ ok: true; codes: string[] } | { ok: false; problem: string }>;
}
