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

/**
 * An identity at another provider that is linked to nobody, waiting for the
 * person to sign in here with the account's own factors (its provider allows
 * linking): carried from step to step of that sign-in and linked when it ends
 * in a login (flow.ts `next`). Dropped when the person goes another way
 * (starts over, registers, asks for a reset, another provider).
 */
export interface PendingLink {
  idpId: string;
  /** The upstream's id of the person, from its verified answer. */
  subject: string;
  /** The provider's name, for the page. */
  name: string;
  /** The hash of the browser binding of the external sign-in it came from (external-binding.ts): it is linked in that browser only. */
  binding: string;
}

/**
 * `fed`: the second-factor steps of a sign-in that passed another provider in
 * place of a password (the org asks a second factor the upstream did not
 * vouch for): the amr of that external sign-in, which the login's amr begins
 * with instead of `pwd` (flow.ts `next`).
 */
export type LoginState = LoginStates & { link?: PendingLink; fed?: string[] };

type LoginStates =
  /** Nothing typed yet: the username page. */
  | { step: 'identify' }
  /** A name was typed; `userId` when it named someone (an unknown name is not revealed: its password fails as a wrong one). */
  | { step: 'password'; loginName: string; userId?: string }
  /** "Forgot password?": the name to send a link for (the password page's, changeable). */
  | { step: 'forgotPassword'; loginName: string }
  /** A link was asked for: the same page whether the name has an account or not. */
  | { step: 'resetSent' }
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
  /** The registration form (the org of the app allows self-registration). */
  | { step: 'register' }
  /** Registered; the address is to be verified before the first login: the page says so. */
  | { step: 'registered'; loginName: string }
  /** Sent to another identity provider: what its callback must match (`state`, `nonce`) and prove (`verifier`, PKCE), once. */
  | { step: 'external'; idpId: string; state: string; nonce?: string; verifier: string; startedAt: number; binding: string }
  /** Signed in; the app's consent (the provider's consent prompt). */
  | { step: 'consent' }
  /** The interaction ends: a login with its amr, or the consent's decision. */
  | { step: 'done'; end: LoginEnd };

/** How a done interaction ends (the effect the routes carry out). */
export type LoginEnd =
  | { kind: 'login'; userId: string; amr: string[]; link?: PendingLink }
  | { kind: 'consent'; allowed: boolean };

export type LoginStep = LoginState['step'];

/**
 * What a stored state of each step must hold to be read back: a state of
 * another version's shape (or a damaged one) is no state, and the sign-in
 * starts over rather than failing on a missing field. Keyed by every step, so
 * a new step without its shape does not compile; `done` is never read back
 * (it is stored only to mark a login finished, once: routes.ts `apply`).
 */
type Fields = Record<string, unknown>;
const text = (v: unknown) => typeof v === 'string';
const texts = (v: unknown) => Array.isArray(v) && v.every(text);
const optional = (check: (v: unknown) => boolean) => (v: unknown) => v === undefined || check(v);
const challenge = (v: unknown) => v === undefined || (typeof v === 'object' && v !== null && text((v as Fields).value) && typeof (v as Fields).expiresAt === 'number');
const passed = (s: Fields) => text(s.loginName) && text(s.userId) && typeof s.passwordAt === 'number';
const ceremony = (s: Fields) => challenge(s.challenge) && texts(s.spent);
const pendingLink = (v: unknown) => typeof v === 'object' && v !== null && text((v as Fields).idpId) && text((v as Fields).subject) && text((v as Fields).name) && text((v as Fields).binding);
/** The second-factor steps: an external sign-in's `fed` is carried through these only. */
export const FACTOR_STEPS: ReadonlySet<string> = new Set<LoginStep>(['securityKey', 'enrolKey', 'codesShown', 'totp', 'enrolTotp', 'recoveryCode', 'keyElsewhere', 'enrolPasskey']);
/** The steps of a sign-in with the account's own factors: a pending link waits on these only (flow.ts carries it through them). */
export const LINK_WAITS_ON: ReadonlySet<string> = new Set<string>([...(['identify', 'password', 'changePassword', 'passkey'] satisfies LoginStep[]), ...FACTOR_STEPS]);
const SHAPES: { readonly [S in LoginStep]: (stored: Fields) => boolean } = {
  identify: () => true,
  password: (s) => text(s.loginName) && optional(text)(s.userId),
  changePassword: (s) => text(s.loginName) && text(s.userId),
  forgotPassword: (s) => text(s.loginName),
  resetSent: () => true,
  securityKey: (s) => passed(s) && ceremony(s),
  enrolKey: (s) => passed(s) && ceremony(s) && optional(text)(s.enrolmentId),
  codesShown: (s) => passed(s) && optional(texts)(s.amr),
  recoveryCode: passed,
  keyElsewhere: passed,
  passkey: (s) => optional(text)(s.loginName) && ceremony(s),
  enrolPasskey: (s) => passed(s) && ceremony(s) && optional(text)(s.enrolmentId),
  totp: passed,
  enrolTotp: passed,
  register: () => true,
  registered: (s) => text(s.loginName),
  external: (s) => text(s.idpId) && text(s.state) && optional(text)(s.nonce) && text(s.verifier) && typeof s.startedAt === 'number' && text(s.binding),
  consent: () => true,
  done: () => false,
};

/** Every step (steps.ts keys its table by these; the table above makes the list complete). */
export const LOGIN_STEPS = Object.keys(SHAPES) as readonly LoginStep[];

export type StateOf<S extends LoginStep> = Extract<LoginState, { step: S }>;

/** The most spent challenges kept per login. */
export const SPENT_KEPT = 20;

/**
 * The user a sign-in in flight belongs to (the adapter's interactionOwner):
 * the one whose right password must be changed, or who is past it at a
 * second factor. A name merely typed makes it nobody's.
 */
export function ownerOf(state: LoginState | undefined): string | undefined {
  if (!state) return undefined;
  // The steps at which a sign-in belongs to nobody yet (a name typed, a provider chosen, a form shown).
  switch (state.step) {
    case 'identify':
    case 'password':
    case 'forgotPassword':
    case 'resetSent':
    case 'consent':
    case 'passkey':
    case 'register':
    case 'registered':
    case 'external':
      return undefined;
  }
  if (state.step === 'done') return state.end.kind === 'login' ? state.end.userId : undefined;
  return state.userId;
}

/** A stored state read back: undefined when it is not one (nothing stored, or the shape of another version). */
export function asLoginState(stored: unknown): LoginState | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const step = (stored as Fields).step;
  if (typeof step !== 'string' || !Object.hasOwn(SHAPES, step)) return undefined;
  const link = (stored as Fields).link;
  const linkOk = link === undefined || (LINK_WAITS_ON.has(step) && pendingLink(link));
  const fed = (stored as Fields).fed;
  const fedOk = fed === undefined || (FACTOR_STEPS.has(step) && texts(fed) && (fed as string[]).includes('fed'));
  return SHAPES[step as LoginStep](stored as Fields) && linkOk && fedOk ? (stored as LoginState) : undefined;
}
