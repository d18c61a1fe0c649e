// The login's one state: where a sign-in stands, a discriminated union on
// `step`. Kept in the interaction (the provider's, so it expires with the
// sign-in and lives in the database like the rest of it), written only
// through the interaction port (ports.ts) with what flow.ts `next` returns.
// A new step adds its variant here, its page to steps.ts, its rows to flow.ts.

/** One WebAuthn challenge handed out on this login (base64url), until `expiresAt` (ms). */
export interface LoginChallenge {
  value: string;
  expiresAt: number;
}

/** Who is signing in once the password was right, and when it was (ms). */
interface PasswordPassed {
  loginName: string;
  userId: string;
  passwordAt: number;
}

/** A page with a WebAuthn ceremony: the challenge it shows now (single use) and the ones answered or replaced (an answer to one of them is a replay). */
interface Ceremony {
  challenge?: LoginChallenge;
  spent: string[];
}

export type LoginState =
  /** Nothing typed yet: the username page. */
  | { step: 'identify' }
  /** A name was typed; `userId` when it named someone (an unknown name is not revealed: its password fails as a wrong one). */
  | { step: 'password'; loginName: string; userId?: string }
  /** The password was right and must be changed before going on. */
  | { step: 'changePassword'; loginName: string; userId: string }
  /** One of the user's keys, as the second factor. */
  | ({ step: 'securityKey' } & PasswordPassed & Ceremony)
  /** forceMfa and no key yet: a key is registered first (RegisterU2F `enrolmentId`), and is then the second factor. */
  | ({ step: 'enrolKey'; enrolmentId?: string } & PasswordPassed & Ceremony)
  /** The key of enrolKey was the user's first: its recovery codes were shown once; going on finishes the login (with `amr`, the enrolled factor's; absent: a security key's). */
  | ({ step: 'codesShown'; amr?: string[] } & PasswordPassed)
  /** A code from the user's authenticator app (TOTP), as the second factor. */
  | ({ step: 'totp' } & PasswordPassed)
  /** forceMfa and no second factor yet: an authenticator app is registered first (its secret only in the sealed table), and is then the second factor. */
  | ({ step: 'enrolTotp' } & PasswordPassed)
  /** A recovery code in place of a lost key. */
  | ({ step: 'recoveryCode' } & PasswordPassed)
  /** A second factor this login cannot take (keys that work elsewhere, or no key can be registered here): the login ends here. */
  | ({ step: 'keyElsewhere' } & PasswordPassed)
  /** The username page offering a passkey too (its discoverable ceremony's challenge); `loginName` when a name was typed whose org signs in without passwords. */
  | ({ step: 'passkey'; loginName?: string } & Ceremony)
  /** forceMfa and no second factor yet, a passkey chosen (ENROLMENT_METHODS): a passkey is registered (RegisterPasskey `enrolmentId`), and is then the factor. */
  | ({ step: 'enrolPasskey'; enrolmentId?: string } & PasswordPassed & Ceremony)
  /** Signed in; the app's consent (the provider's consent prompt). */
  | { step: 'consent' }
  /** The interaction ends: a login with its amr, or the consent's decision. */
  | { step: 'done'; end: LoginEnd };

/** How a done interaction ends (the effect the routes carry out). */
export type LoginEnd =
  | { kind: 'login'; userId: string; amr: string[] }
  | { kind: 'consent'; allowed: boolean };

export type LoginStep = LoginState['step'];

/** Every step, in the order a login meets them (steps.ts keys its table by these). */
export const LOGIN_STEPS = ['identify', 'password', 'changePassword', 'securityKey', 'enrolKey', 'codesShown', 'recoveryCode', 'keyElsewhere', 'consent', 'done', 'passkey', 'enrolPasskey', 'totp', 'enrolTotp'] as const satisfies readonly LoginStep[];

export type StateOf<S extends LoginStep> = Extract<LoginState, { step: S }>;

/** The most spent challenges kept per login. */
export const SPENT_KEPT = 20;

/**
 * The user a sign-in in flight belongs to (the adapter's interactionOwner):
 * the one whose right password must be changed, or who is past it at a
 * second factor. A name merely typed makes it nobody's.
 */
export function ownerOf(state: LoginState | undefined): string | undefined {
  if (!state || state.step === 'identify' || state.step === 'password' || state.step === 'consent' || state.step === 'passkey') return undefined;
  if (state.step === 'done') return state.end.kind === 'login' ? state.end.userId : undefined;
  return state.userId;
}

/** A stored state read back: undefined when it is not one (nothing stored, or the shape of another version). */
export function asLoginState(stored: unknown): LoginState | undefined {
  const step = (stored as { step?: unknown } | undefined)?.step;
  return typeof step === 'string' && (LOGIN_STEPS as readonly string[]).includes(step) && step !== 'done' ? (stored as LoginState) : undefined;
}
