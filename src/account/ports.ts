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
  hasPassword: boolean;
  factors: Factor[];
  codesLeft: number;
  mfaRequired: boolean;
}

export type Done = { ok: true } | { ok: false; problem: string };

export interface AccountPorts {
  /** The live human user's account; undefined: no such user, a machine, or not active. */
  view(userId: string): Promise<AccountView | undefined>;
  /** UpdateHumanUser's profile, as the user itself. */
  updateProfile(userId: string, profile: { givenName: string; familyName: string; displayName: string }, lang: Language): Promise<Done>;
  /** RemoveU2F / RemovePasskey / RemoveTOTP as the user itself. */
  removeFactor(userId: string, factor: Pick<Factor, 'kind' | 'id'>, lang: Language): Promise<Done>;
  /** A security key's or passkey's new name, as the user itself. */
  renameFactor(userId: string, factor: Pick<Factor, 'kind' | 'id'>, name: string, lang: Language): Promise<Done>;
  /** GenerateRecoveryCodes as the user itself: the new set (the old one no longer works). */
  regenerateCodes(userId: string): Promise<string[]>;
}
