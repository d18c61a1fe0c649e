// The login's one transition function: from this state, on this outcome, go
// there. Pure (no clock, no I/O: an outcome carries the time it happened), so
// the whole flow is a table a test can walk (test/login/flow.test.ts). The
// steps (steps/) only say what happened on their page; the routes store what
// `next` returns and carry out a `done` state's end.
import { FACTOR_STEPS, LINK_WAITS_ON, SPENT_KEPT, type LoginChallenge, type LoginState, type PendingLink, type StateOf } from './state.js';
import { ENROLMENT_METHODS, type EnrolmentMethod } from './steps/enrolment-methods.js';

/** What the user still has to pass after a right password (decided from the user's keys and org: steps/second-factor.ts). */
export type SecondFactor = 'none' | 'key' | 'enrol' | 'refused' | 'totp';

export type LoginOutcome =
  /** A name was typed (`userId` when it names someone). */
  | { kind: 'nameFound'; loginName: string; userId?: string }
  /** The password was right: a new one is due first, or the second factor decided (`at`: when, ms). */
  | { kind: 'passwordRight'; changeRequired: true }
  | { kind: 'passwordRight'; changeRequired: false; secondFactor: SecondFactor; at: number }
  | { kind: 'passwordWrong' }
  /** The password page's "Forgot password?". */
  | { kind: 'forgotRequested' }
  /** A reset link was asked for (whether the name has an account is not known here). */
  | { kind: 'resetRequested' }
  /** The new password was set; the second factor decided. */
  | { kind: 'passwordChanged'; secondFactor: SecondFactor; at: number }
  /** A second-factor page decided again (a key registered or removed meanwhile, forceMfa changed). */
  | { kind: 'secondFactorDecided'; secondFactor: SecondFactor }
  /** A ceremony page hands out a fresh challenge (the previous one is spent); an enrolment names its registration. */
  | { kind: 'challengeIssued'; challenge: LoginChallenge; enrolmentId?: string }
  /** An answer takes the current challenge, whatever it turns out to be. */
  | { kind: 'challengeTaken' }
  | { kind: 'keyAccepted' }
  /** The key was registered; `codesShown` when it was the user's first and brought recovery codes. */
  | { kind: 'keyEnrolled'; codesShown: boolean }
  | { kind: 'codesAcknowledged' }
  | { kind: 'recoveryRequested' }
  | { kind: 'keyRequested' }
  | { kind: 'codeAccepted' }
  /** The security-key page's button to the authenticator app (a user with both). */
  | { kind: 'totpRequested' }
  | { kind: 'totpAccepted' }
  /** The app was registered; `codesShown` when it was the user's first second factor and brought recovery codes. */
  | { kind: 'totpEnrolled'; codesShown: boolean }
  | { kind: 'consentDecided'; allowed: boolean }
  /** The login could not be recorded: the user was locked or deactivated meanwhile. */
  | { kind: 'loginRefused' }
  /** A step's input was refused (a wrong code, a refused key, a rule of the new password): the state stays, its page says why. */
  | { kind: 'refused' }
  | { kind: 'restart' }
  /** A typed name whose org signs in without passwords: the passkey prompt in place of the password. */
  | { kind: 'passkeyRequired'; loginName: string }
  /** A passkey signed in (its user, and the amr of UsePasskey). */
  | { kind: 'passkeyAccepted'; userId: string; amr: string[] }
  /** At a forced enrolment, another method of ENROLMENT_METHODS chosen. */
  | { kind: 'enrolmentChosen'; method: EnrolmentMethod }
  /** The passkey was registered; `codesShown` when it was the user's first strong factor and brought recovery codes. */
  | { kind: 'passkeyEnrolled'; codesShown: boolean }
  /** The username page's "Register" (the org of the app allows it). */
  | { kind: 'registerRequested' }
  /** Registered with a password: signed in as with a right password (the second factor decided), or first the address to verify. */
  | { kind: 'registered'; loginName: string; userId: string; verificationRequired: false; secondFactor: SecondFactor; at: number }
  | { kind: 'registered'; loginName: string; userId: string; verificationRequired: true }
  /** A "Continue with …" button: the sign-in goes to that provider, with what its callback must match. */
  | { kind: 'externalStarted'; idpId: string; state: string; nonce?: string; verifier: string; at: number; binding: string }
  /** The provider's callback arrived for this sign-in: what it had to match is spent (whatever the exchange then says). */
  | { kind: 'externalReturned' }
  /** The upstream's answer named a linked (or just created) user whose org asks no more of it. */
  | { kind: 'externalSignedIn'; userId: string; amr: string[] }
  /** The upstream's answer named a linked (or just created) user whose org asks a second factor the upstream did not vouch for: Keyhold's own follows. */
  | { kind: 'externalNeedsFactor'; userId: string; loginName: string; amr: string[]; secondFactor: SecondFactor; at: number }
  /** The upstream's identity is linked to nobody and its provider allows linking: the person signs in here to link it. */
  | { kind: 'externalUnlinked'; link: PendingLink };

export type OutcomeKind = LoginOutcome['kind'];

/** RFC 8176 amr of each way a login ends; a recovery code has no value of its own. */
export const AMR = {
  password: ['pwd'],
  securityKey: ['pwd', 'hwk', 'mfa'],
  recoveryCode: ['pwd', 'mfa'],
  passkey: ['hwk', 'user', 'mfa'],
  totp: ['pwd', 'otp', 'mfa'],
} as const satisfies Record<string, readonly string[]>;

const IDENTIFY: LoginState = { step: 'identify' };

const login = (userId: string, amr: readonly string[]): LoginState => ({ step: 'done', end: { kind: 'login', userId, amr: [...amr] } });

/** Where a right password leads, for the user it named. */
function afterPassword(who: { loginName: string; userId: string }, secondFactor: SecondFactor, at: number): LoginState {
  const passed = { loginName: who.loginName, userId: who.userId, passwordAt: at };
  switch (secondFactor) {
    case 'none':
      return login(who.userId, AMR.password);
    case 'key':
      return { step: 'securityKey', ...passed, spent: [] };
    case 'enrol':
      return { step: 'enrolKey', ...passed, spent: [] };
    case 'refused':
      return { step: 'keyElsewhere', ...passed };
    case 'totp':
      return { step: 'totp', ...passed };
  }
}

type SecondFactorState = StateOf<'securityKey' | 'enrolKey' | 'keyElsewhere' | 'enrolPasskey' | 'totp' | 'enrolTotp'>;

/** A second-factor page decided again: the same step stays as it is; another starts from where this login is. */
function redecided(state: SecondFactorState, secondFactor: SecondFactor): LoginState {
  const same = { key: 'securityKey', enrol: 'enrolKey', refused: 'keyElsewhere', none: undefined, totp: 'totp' }[secondFactor] === state.step;
  if (same) return state;
  // Nothing beyond the password any more: the password again.
  if (secondFactor === 'none') return { step: 'password', loginName: state.loginName, userId: state.userId };
  const spent = 'spent' in state ? state.spent : [];
  const challenge = 'challenge' in state ? state.challenge : undefined;
  const passed = { loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt };
  if (secondFactor === 'key') return { step: 'securityKey', ...passed, challenge, spent };
  if (secondFactor === 'enrol') return { step: 'enrolKey', ...passed, challenge, spent };
  if (secondFactor === 'totp') return { step: 'totp', ...passed };
  return { step: 'keyElsewhere', ...passed };
}

const spend = (state: { challenge?: LoginChallenge; spent: string[] }): string[] => (state.challenge ? [...state.spent, state.challenge.value] : state.spent).slice(-SPENT_KEPT);

/** The ceremony's rows, alike for using a key and registering one. */
function ceremony<S extends StateOf<'securityKey' | 'enrolKey' | 'passkey' | 'enrolPasskey'>>(state: S, outcome: LoginOutcome): S | undefined {
  if (outcome.kind === 'challengeIssued') {
    const issued = { ...state, challenge: outcome.challenge, spent: spend(state) };
    return state.step === 'enrolKey' || state.step === 'enrolPasskey' ? { ...issued, enrolmentId: outcome.enrolmentId } : issued;
  }
  if (outcome.kind === 'challengeTaken') return state.challenge ? { ...state, challenge: undefined, spent: spend(state) } : state;
  return undefined;
}

/** A forced enrolment's method chosen (ENROLMENT_METHODS): its step, from where this login is (a shown challenge spent). */
function enrolWith(state: StateOf<'enrolKey' | 'enrolPasskey' | 'enrolTotp'>, method: EnrolmentMethod): LoginState {
  const step = ENROLMENT_METHODS[method].step;
  if (step === state.step) return state;
  const passed = { loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt };
  return step === 'enrolTotp' ? { step, ...passed } : { step, ...passed, spent: 'spent' in state ? spend(state) : [] };
}

/** Where the person goes another way: the pending link is dropped. */
const DROPS_LINK: ReadonlySet<LoginOutcome['kind']> = new Set(['restart', 'externalStarted', 'externalReturned', 'externalSignedIn', 'externalNeedsFactor', 'externalUnlinked', 'registerRequested', 'forgotRequested']);

/** A login's amr after an external sign-in and Keyhold's own factor: the upstream's part first, no password. */
const fedAmr = (fed: readonly string[], own: readonly string[]) => [...new Set([...fed, ...own.filter((a) => a !== 'pwd')])];

/** An external sign-in's `fed` (state.ts) through the second-factor steps into the login's amr; dropped anywhere else. */
function carryFed(state: LoginState, after: LoginState): LoginState {
  const { fed } = state;
  if (!fed || after === state) return after;
  if (after.step === 'done') return after.end.kind === 'login' ? { ...after, end: { ...after.end, amr: fedAmr(fed, after.end.amr) } } : after;
  if (FACTOR_STEPS.has(after.step)) return { ...after, fed };
  const { fed: _dropped, ...rest } = after;
  return rest as LoginState;
}

/**
 * The login's transitions, and a pending link (state.ts PendingLink) carried
 * along: through the steps of a sign-in with the account's own factors, into
 * the login it ends in; nowhere else.
 */
export function next(state: LoginState, outcome: LoginOutcome): LoginState {
  const after = carryFed(state, transition(state, outcome));
  const { link } = state;
  // Nothing moved: the same state comes back (the routes then save nothing).
  if (after === state || !link || DROPS_LINK.has(outcome.kind)) return after;
  if (after.step === 'done') return after.end.kind === 'login' ? { ...after, end: { ...after.end, link } } : after;
  if (!LINK_WAITS_ON.has(after.step)) {
    const { link: _dropped, ...rest } = after;
    return rest as LoginState;
  }
  return { ...after, link };
}

/**
 * The rows. An outcome with no row for the state moves nothing (the same
 * state comes back): a form of another step, posted late or twice, changes
 * nothing.
 */
function transition(state: LoginState, outcome: LoginOutcome): LoginState {
  // A sign-in in the login prompt may start over, or with a newly typed name, from any of its steps.
  const inLogin = state.step !== 'consent' && state.step !== 'done';
  if (inLogin && outcome.kind === 'restart') return IDENTIFY;
  // "Register" is on the username page (with or without a passkey offered there).
  if (outcome.kind === 'registerRequested' && (state.step === 'identify' || (state.step === 'passkey' && state.loginName === undefined))) return { step: 'register' };
  if (inLogin && outcome.kind === 'passkeyRequired') return { step: 'passkey', loginName: outcome.loginName, spent: 'spent' in state ? spend(state) : [] };
  // From any step of the login prompt, the person may go to another provider instead (its button on the page).
  if (inLogin && outcome.kind === 'externalStarted') {
    return { step: 'external', idpId: outcome.idpId, state: outcome.state, ...(outcome.nonce ? { nonce: outcome.nonce } : {}), verifier: outcome.verifier, startedAt: outcome.at, binding: outcome.binding };
  }
  if (inLogin && outcome.kind === 'nameFound') return { step: 'password', loginName: outcome.loginName, ...(outcome.userId ? { userId: outcome.userId } : {}) };
  switch (state.step) {
    case 'identify':
      // Only the callback's route says this, right after it spent the external state (above) and the upstream's answer passed.
      if (outcome.kind === 'externalSignedIn') return login(outcome.userId, outcome.amr);
      if (outcome.kind === 'externalNeedsFactor') {
        // The upstream stands in for the password: the factor steps follow as after one, and the login's amr says so.
        // The route asks only where the org requires a factor: "none" then means that changed meanwhile, and this
        // path never ends in a login without one — the sign-in starts over.
        const after = afterPassword({ loginName: outcome.loginName, userId: outcome.userId }, outcome.secondFactor, outcome.at);
        return FACTOR_STEPS.has(after.step) ? { ...after, fed: [...outcome.amr] } : IDENTIFY;
      }
      if (outcome.kind === 'externalUnlinked') return { step: 'identify', link: outcome.link };
      // The page offers a passkey: its challenge is handed out with it.
      if (outcome.kind === 'challengeIssued') return { step: 'passkey', challenge: outcome.challenge, spent: [] };
      return state;
    case 'password':
      if (outcome.kind === 'passwordRight' && state.userId) {
        const who = { loginName: state.loginName, userId: state.userId };
        return outcome.changeRequired ? { step: 'changePassword', ...who } : afterPassword(who, outcome.secondFactor, outcome.at);
      }
      // Nothing about the account is carried on: the reset page knows only the typed name.
      if (outcome.kind === 'forgotRequested') return { step: 'forgotPassword', loginName: state.loginName };
      return state;
    case 'forgotPassword':
      if (outcome.kind === 'resetRequested') return { step: 'resetSent' };
      return state;
    case 'resetSent':
      return state;
    case 'changePassword':
      if (outcome.kind === 'passwordChanged') return afterPassword(state, outcome.secondFactor, outcome.at);
      return state;
    case 'securityKey':
      if (outcome.kind === 'keyAccepted') return login(state.userId, AMR.securityKey);
      if (outcome.kind === 'recoveryRequested') return { step: 'recoveryCode', loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt };
      if (outcome.kind === 'secondFactorDecided') return redecided(state, outcome.secondFactor);
      if (outcome.kind === 'totpRequested') return { step: 'totp', loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt };
      return ceremony(state, outcome) ?? state;
    case 'enrolKey':
      if (outcome.kind === 'keyEnrolled') {
        return outcome.codesShown ? { step: 'codesShown', loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt } : login(state.userId, AMR.securityKey);
      }
      if (outcome.kind === 'secondFactorDecided') return redecided(state, outcome.secondFactor);
      if (outcome.kind === 'enrolmentChosen') return enrolWith(state, outcome.method);
      return ceremony(state, outcome) ?? state;
    case 'codesShown':
      // The key registered at this login is the factor: going on finishes with it.
      if (outcome.kind === 'codesAcknowledged') return login(state.userId, state.amr ?? AMR.securityKey);
      return state;
    case 'recoveryCode':
      if (outcome.kind === 'codeAccepted') return login(state.userId, AMR.recoveryCode);
      if (outcome.kind === 'keyRequested') return { step: 'securityKey', loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt, spent: [] };
      return state;
    case 'totp':
      if (outcome.kind === 'totpAccepted') return login(state.userId, AMR.totp);
      if (outcome.kind === 'recoveryRequested') return { step: 'recoveryCode', loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt };
      if (outcome.kind === 'keyRequested') return { step: 'securityKey', loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt, spent: [] };
      if (outcome.kind === 'secondFactorDecided') return redecided(state, outcome.secondFactor);
      return state;
    case 'enrolTotp':
      if (outcome.kind === 'totpEnrolled') {
        return outcome.codesShown ? { step: 'codesShown', amr: [...AMR.totp], loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt } : login(state.userId, AMR.totp);
      }
      if (outcome.kind === 'enrolmentChosen') return enrolWith(state, outcome.method);
      // Decided again as 'enrol' means: still nothing registered, the app's page stays.
      if (outcome.kind === 'secondFactorDecided') return outcome.secondFactor === 'enrol' ? state : redecided(state, outcome.secondFactor);
      return state;
    case 'keyElsewhere':
      if (outcome.kind === 'secondFactorDecided') return redecided(state, outcome.secondFactor);
      return state;
    case 'register':
      if (outcome.kind === 'registered') {
        const who = { loginName: outcome.loginName, userId: outcome.userId };
        return outcome.verificationRequired ? { step: 'registered', loginName: outcome.loginName } : afterPassword(who, outcome.secondFactor, outcome.at);
      }
      return state;
    case 'registered':
      return state;
    case 'external':
      // Spent by the first callback (the routes save it only while the state is still this one): a replay finds identify.
      if (outcome.kind === 'externalReturned') return IDENTIFY;
      return state;
    case 'consent':
      if (outcome.kind === 'consentDecided') return { step: 'done', end: { kind: 'consent', allowed: outcome.allowed } };
      return state;
    case 'passkey':
      if (outcome.kind === 'passkeyAccepted') return login(outcome.userId, outcome.amr);
      return ceremony(state, outcome) ?? state;
    case 'enrolPasskey':
      if (outcome.kind === 'passkeyEnrolled') {
        const passed = { loginName: state.loginName, userId: state.userId, passwordAt: state.passwordAt };
        return outcome.codesShown ? { step: 'codesShown', ...passed, amr: [...AMR.passkey] } : login(state.userId, AMR.passkey);
      }
      // Still to enrol: the chosen method stays; anything else as for a key.
      if (outcome.kind === 'secondFactorDecided') return outcome.secondFactor === 'enrol' ? state : redecided(state, outcome.secondFactor);
      if (outcome.kind === 'enrolmentChosen') return enrolWith(state, outcome.method);
      return ceremony(state, outcome) ?? state;
    case 'done':
      // Locked or deactivated meanwhile: no login; the sign-in starts over.
      if (outcome.kind === 'loginRefused' && state.end.kind === 'login') return IDENTIFY;
      return state;
  }
}
