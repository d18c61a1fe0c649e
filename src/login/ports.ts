// What the login needs from the rest of Keyhold. Two kinds of port:
// - the provider's interaction (InteractionPort, implemented by
//   src/server/oidc/interactions.ts, the one place that touches the library's
//   objects): load a sign-in with its state, save the state (also only while
//   the stored one is still as this request read it), end it;
// - plain adapters (LoginPorts, adapters.ts) over the commands and queries:
//   no rule of their own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PasswordAttempt, PasswordVerdict } from '../commands/login/check-password.js';
import type { RecoveryVerdict } from '../commands/login/check-recovery-code.js';
import type { UseTotpInput, UseTotpResult } from '../commands/totp/totp.js';
import type { UseU2fInput, UseU2fResult } from '../commands/u2f/use-u2f.js';
import type { UsePasskeyInput, UsePasskeyResult } from '../commands/passkeys/use-passkey.js';
import type { LoginFactors } from '../queries/login-policy.js';
import type { GuessClient } from '../domain/identity/guess-buckets.js';
import type { Language } from '../domain/i18n/language.js';
import type { ReadyKey, RelyingParties } from './relying-parties.js';
import type { LoginState, PendingLink } from './state.js';

/** One sign-in in flight, as the login sees it. */
export interface LoginInteraction {
  uid: string;
  clientId: string;
  /** Where the sign-in stands (the consent prompt is the `consent` step; a sign-in with nothing stored, `identify`). */
  state: LoginState;
  /** The provider asks for neither a login nor a consent (a sign-in the login cannot serve). */
  foreign: boolean;
  /** The app's authorization request: its login_hint, ui_locales, scope, and the org its org scope names. */
  loginHint: string;
  uiLocales: string;
  scope: unknown;
  orgId?: string;
  /** The app asked for the consent page (prompt=consent). */
  consentAsked: boolean;
  /** The app asks for Keyhold's own API, never granted without the consent page. */
  apiConsentNeeded: boolean;
  /** The user the browser's session is signed in as (at the consent). */
  sessionAccountId?: string;
  /** When the sign-in itself expires (ms). */
  expiresAt?: number;
  /** The app's name, and its project. */
  app: { name: string; projectId?: string };
}

/** Where an ended sign-in goes next; `nativeDone`: a native app's "you may close this window" page first. */
export interface Ended {
  returnTo: string;
  nativeDone: boolean;
}

export interface InteractionPort {
  /** The sign-in `uid` of this browser (its interaction cookie); undefined: none, or another one. */
  load(req: IncomingMessage, res: ServerResponse, uid: string): Promise<LoginInteraction | undefined>;
  save(interaction: LoginInteraction, state: LoginState): Promise<void>;
  /** Saves `state` only while the stored state is still `expected` (its step, user and challenge): false when another request moved it on first. */
  saveIfStill(interaction: LoginInteraction, expected: LoginState, state: LoginState): Promise<boolean>;
  /** Ends the sign-in with a login as `accountId` (RFC 8176 amr and its acr). These three answer undefined when the sign-in is gone (resumed by another request, or expired). */
  finishLogin(interaction: LoginInteraction, login: { accountId: string; amr: string[] }): Promise<Ended | undefined>;
  /** Grants what the app asked (the consent given, or none needed) and ends the consent. */
  grantConsent(interaction: LoginInteraction): Promise<Ended | undefined>;
  /** Ends the consent with access_denied. */
  denyConsent(interaction: LoginInteraction): Promise<Ended | undefined>;
  /** Whether the issuer is served over https (the known-browser cookie's Secure flag). */
  secure(): boolean;
}

/** The adapters the steps use (adapters.ts; wired in start.ts). */
export interface LoginPorts {
  /** The user a login name names (the username; `orgId` from the org scope when names collide across orgs). */
  findLoginUser(loginName: string, orgId?: string): Promise<{ id: string; username: string } | undefined>;
  /** The password check command (src/commands/login/check-password.ts). */
  verifyPassword(attempt: PasswordAttempt): Promise<PasswordVerdict>;
  /** The user's own SetPassword after a changeRequired login; a refusal's text in `lang`. */
  changePassword(userId: string, newPassword: string, lang: Language): Promise<{ ok: true } | { ok: false; problem: string }>;
  /** Whether Keyhold can send mail (KEYHOLD_SMTP_URL): the forgotten-password link is offered only then. */
  mailConfigured(): boolean;
  /**
   * Mails the user a new code for the address it holds (a self-registration waiting for it; address-code.ts):
   * 'mailed', 'wait' (the per-user mail limit), or 'off' (no mail server, or it refused).
   */
  mailAddressCode(userId: string, lang: Language): Promise<'mailed' | 'wait' | 'off'>;
  /** Sends a reset link to the account `loginName` names, if any, after answering: returns at once, the same for every name (password-reset.ts). */
  requestPasswordReset(loginName: string, orgId: string | undefined, lang: Language): void;
  /** The user a reset code is for while it works (unused, unexpired, its address still the user's). */
  resetTarget(code: string): Promise<{ userId: string; username: string } | undefined>;
  /** Sets the new password with a reset code, using the code (once) and ending every session of the user. */
  resetPassword(code: string, newPassword: string, lang: Language): Promise<{ ok: true } | { ok: false; expired: true } | { ok: false; expired?: undefined; problem: string }>;
  /** An address-verification code typed or opened from the mail: verified once, counted by the budgets (commands/users/email-verification.ts). */
  verifyEmailCode(userId: string, code: string, address: string): Promise<{ ok: true } | { ok: false; reason: 'EMAIL_CODE_WRONG' | 'EMAIL_CODE_SLOW_DOWN'; retryAfterSeconds?: number }>;
  /** Whether the user may log in to the app's project (projectRoleCheck / hasProjectCheck). */
  mayLogIn(userId: string, projectId: string): Promise<boolean>;
  /** Records a successful login with its amr; false: the user is no longer active, no login; 'unverified': a registered address to verify first. */
  loggedIn(userId: string, clientId: string, clientIp: string, amr: string[]): Promise<boolean | 'unverified'>;
  /** Every ready key of the user, under whichever RP id it was registered, and whether its authenticator app is ready: one read, what the steps after the password decide on. */
  secondFactorsOf(userId: string): Promise<{ keys: ReadyKey[]; hasTotp: boolean }>;
  /** The check of a key's answer (the use-u2f command). */
  useKey(input: UseU2fInput): Promise<UseU2fResult>;
  /** Whether the user's org requires a second factor (login policy forceMfa). */
  mfaRequired(userId: string): Promise<boolean>;
  /** RegisterU2F as the user: a registration and its creation options. */
  startEnrollment(userId: string, rpId: string): Promise<{ u2fId: string; options: unknown }>;
  /** VerifyU2FRegistration as the user (with the recovery codes a first key brings); a refusal's text in `lang`. */
  finishEnrollment(userId: string, u2fId: string, credential: unknown, tokenName: string, lang: Language): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; problem: string }>;
  /** The relying party ids, the origins and the ceremony timeout (ms). */
  webauthn(): RelyingParties & { timeoutMs: number };
  /** The recovery-code check command (src/commands/login/check-recovery-code.ts). */
  useRecoveryCode(userId: string, typed: string, client: GuessClient, clientId: string): Promise<RecoveryVerdict>;
  /** The login policy's factors of an org (loginFactorsOf); no org: the instance's default org's. */
  loginFactors(orgId: string | undefined): Promise<LoginFactors>;
  /** The login policy's factors of the user's org; undefined: no such user, or a machine user (never signs in at the login). */
  userLoginFactors(userId: string): Promise<LoginFactors | undefined>;
  /** The passkey login's check (the use-passkey command). */
  usePasskey(input: UsePasskeyInput): Promise<UsePasskeyResult>;
  /** RegisterPasskey as the user: a registration and its creation options (resident key, user verification required). */
  startPasskeyEnrollment(userId: string, rpId: string): Promise<{ passkeyId: string; options: unknown }>;
  /** VerifyPasskeyRegistration as the user (with the recovery codes a first strong factor brings); a refusal's text in `lang`. */
  finishPasskeyEnrollment(userId: string, passkeyId: string, credential: unknown, name: string, lang: Language): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; problem: string }>;
  /**
   * The organization a sign-in is for: the one its org scope names, else the app's (its project's
   * owner). Registration, the offered identity providers and the accounts they create are this org's:
   * one organization's administrator never puts a button on another organization's apps' sign-in.
   */
  orgOfSignIn(interaction: Pick<LoginInteraction, 'orgId' | 'app'>): Promise<string | undefined>;
  /** Whether people may register themselves at this sign-in: the org of the org scope, else the app's org, and its rules; undefined: not allowed. */
  registration(interaction: Pick<LoginInteraction, 'orgId' | 'app'>): Promise<{ orgId: string; domains: readonly string[]; verification: boolean } | undefined>;
  /** The register-human-user command; a refusal's text in `lang`. */
  register(
    input: { orgId: string; givenName: string; familyName: string; email: string; password: string; rules: { domains: readonly string[]; verification: boolean } },
    client: { address: string },
    lang: Language,
  ): Promise<{ ok: true; userId: string; username: string } | { ok: false; problem: string }>;
  /** Whether the user has a ready authenticator app (src/queries/totp.ts). */
  hasTotp(userId: string): Promise<boolean>;
  /** The login's check of a code from the app (the use-totp command: budgets, ±1 step, the step claimed once). */
  useTotp(input: UseTotpInput): Promise<UseTotpResult>;
  /** RegisterTOTP as the user: a pending app, its otpauth:// URI and secret (answered, never stored outside the sealed table); `again`: the pending one if there is one. */
  startTotpEnrolment(userId: string, again?: boolean): Promise<{ uri: string; secret: string }>;
  /** The user's pending authenticator-app registration, if one is pending: never a new one (the account page's retry, which asked no password). */
  pendingTotpEnrolment(userId: string): Promise<{ uri: string; secret: string } | undefined>;
  /** VerifyTOTPRegistration as the user (with the recovery codes a first second factor brings); a refusal's reason, or its text in `lang`. */
  finishTotpEnrolment(userId: string, code: string, lang: Language): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; problem: string; reason?: string }>;
  /** The identity providers an app of the org offers ("Continue with …"); no org: the instance's default org's. */
  offeredProviders(orgId: string | undefined): Promise<{ idpId: string; name: string }[]>;
  /** Starts the exchange with a provider the org offers: where to send the browser, and what its callback must match; undefined: no such provider. */
  startExternal(idpId: string, orgId: string | undefined, state: string, redirectUri: string): Promise<ExternalStart | undefined>;
  /** Finishes the exchange (the callback's URL against what was kept) and decides the sign-in (src/login/external.ts). */
  finishExternal(input: { idpId: string; orgId: string | undefined; clientId: string; callback: URL; kept: { state: string; nonce?: string; verifier: string } }): Promise<ExternalFinish>;
  /**
   * Links the identity that waited on this sign-in to the user it just signed in as with its own
   * factors. A link the rules refuse now (the provider removed, the identity linked meanwhile, a
   * user of another org than an org's provider) is not made, and the login goes on: it was the
   * person's own; false then.
   */
  linkPending(link: PendingLink, userId: string): Promise<boolean>;
}

export interface ExternalStart {
  url: string;
  nonce?: string;
  verifier: string;
}

/** The exchange's end as the login shows it: a sign-in, or what to tell the person (its upstream detail goes to the log). */
export type ExternalFinish =
  | { kind: 'login'; userId: string; username: string; amr: string[]; secondFactor: boolean; name: string }
  /** Linked to nobody; its provider allows linking it to an account the person signs in to here. */
  | { kind: 'unlinked'; subject: string; name: string }
  | { kind: 'problem'; text: 'externalDenied' | 'externalUnavailable' | 'externalRefused' | 'externalNotLinked' | 'locked'; name: string };
