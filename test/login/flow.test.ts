// The login's transitions (src/login/flow.ts `next`) as a table: state ×
// outcome → state, without a server. Every row of the function, the
// refusals that keep a state, restart, and outcomes that move nothing.
import { describe, expect, it } from 'vitest';
import { AMR, next, type LoginOutcome } from '../../src/login/flow.js';
import { asLoginState, LOGIN_STEPS, ownerOf, SPENT_KEPT, type LoginState } from '../../src/login/state.js';

const AT = 1_000;
const who = { loginName: 'ada', userId: 'u1' };
const passed = { ...who, passwordAt: AT };
const c1 = { value: 'c1', expiresAt: 5 };
const c2 = { value: 'c2', expiresAt: 6 };

const S = {
  identify: { step: 'identify' },
  password: { step: 'password', ...who },
  unknownName: { step: 'password', loginName: 'nobody' },
  changePassword: { step: 'changePassword', ...who },
  securityKey: { step: 'securityKey', ...passed, spent: [] },
  securityKeyC1: { step: 'securityKey', ...passed, challenge: c1, spent: [] },
  enrolKey: { step: 'enrolKey', ...passed, spent: [] },
  enrolKeyC1: { step: 'enrolKey', ...passed, challenge: c1, spent: ['c0'], enrolmentId: 'r1' },
  codesShown: { step: 'codesShown', ...passed },
  recoveryCode: { step: 'recoveryCode', ...passed },
  keyElsewhere: { step: 'keyElsewhere', ...passed },
  consent: { step: 'consent' },
  doneLogin: { step: 'done', end: { kind: 'login', userId: 'u1', amr: ['pwd'] } },
  doneConsent: { step: 'done', end: { kind: 'consent', allowed: true } },
  passkey: { step: 'passkey', spent: [] },
  passkeyC1: { step: 'passkey', challenge: c1, spent: [] },
  passkeyOnly: { step: 'passkey', loginName: 'ada', spent: [] },
  enrolPasskey: { step: 'enrolPasskey', ...passed, spent: [] },
  enrolPasskeyC1: { step: 'enrolPasskey', ...passed, challenge: c1, spent: ['c0'], enrolmentId: 'p1' },
  totp: { step: 'totp', ...passed },
  enrolTotp: { step: 'enrolTotp', ...passed },
  totpCodesShown: { step: 'codesShown', amr: [...AMR.totp], ...passed },
  register: { step: 'register' },
  registered: { step: 'registered', loginName: 'ada' },
  forgotPassword: { step: 'forgotPassword', loginName: 'ada' },
  forgotUnknown: { step: 'forgotPassword', loginName: 'nobody' },
  resetSent: { step: 'resetSent' },
  external: { step: 'external', idpId: 'i1', state: 'uid.s1', nonce: 'n1', verifier: 'v1', startedAt: AT, binding: 'b1' },
} as const satisfies Record<string, LoginState>;

const loggedIn = (amr: readonly string[]): LoginState => ({ step: 'done', end: { kind: 'login', userId: 'u1', amr: [...amr] } });

type Row = [name: string, from: LoginState, outcome: LoginOutcome, to: LoginState];

const ROWS: Row[] = [
  // another identity provider
  ['a "Continue with" button: the sign-in goes to the provider', S.identify, { kind: 'externalStarted', idpId: 'i1', state: 'uid.s1', nonce: 'n1', verifier: 'v1', at: AT, binding: 'b1' }, S.external],
  ['a "Continue with" button from the password page', S.password, { kind: 'externalStarted', idpId: 'i1', state: 'uid.s1', nonce: 'n1', verifier: 'v1', at: AT, binding: 'b1' }, S.external],
  ['the callback spends what it had to match', S.external, { kind: 'externalReturned' }, S.identify],
  ['a replayed callback finds nothing to spend', S.identify, { kind: 'externalReturned' }, S.identify],
  ['the verified answer of a linked user signs in with its amr', S.identify, { kind: 'externalSignedIn', userId: 'u1', amr: ['fed'] }, loggedIn(['fed'])],
  ['no external sign-in past another step', S.password, { kind: 'externalSignedIn', userId: 'u1', amr: ['fed'] }, S.password],
  ['no external sign-in while still at the provider (the callback spends first)', S.external, { kind: 'externalSignedIn', userId: 'u1', amr: ['fed'] }, S.external],
  ['starting over from the provider', S.external, { kind: 'restart' }, S.identify],
  ['no provider from the consent', S.consent, { kind: 'externalStarted', idpId: 'i1', state: 'uid.s1', verifier: 'v1', at: AT, binding: 'b1' }, S.consent],
  // identify
  ['a typed name that names someone', S.identify, { kind: 'nameFound', loginName: 'ada', userId: 'u1' }, S.password],
  ['a typed name that names nobody (not revealed)', S.identify, { kind: 'nameFound', loginName: 'nobody' }, S.unknownName],
  ['an empty name is refused', S.identify, { kind: 'refused' }, S.identify],
  // password
  ['a wrong password', S.password, { kind: 'passwordWrong' }, S.password],
  ['a right password that must be changed', S.password, { kind: 'passwordRight', changeRequired: true }, S.changePassword],
  ['a right password, nothing more: logged in with pwd', S.password, { kind: 'passwordRight', changeRequired: false, secondFactor: 'none', at: AT }, loggedIn(AMR.password)],
  ['a right password, a key to use', S.password, { kind: 'passwordRight', changeRequired: false, secondFactor: 'key', at: AT }, S.securityKey],
  ['a right password, a key to register (forceMfa)', S.password, { kind: 'passwordRight', changeRequired: false, secondFactor: 'enrol', at: AT }, S.enrolKey],
  ['a right password, a second factor this login cannot take', S.password, { kind: 'passwordRight', changeRequired: false, secondFactor: 'refused', at: AT }, S.keyElsewhere],
  ['a name nobody holds never passes', S.unknownName, { kind: 'passwordRight', changeRequired: false, secondFactor: 'none', at: AT }, S.unknownName],
  ['another name typed at the password page', S.password, { kind: 'nameFound', loginName: 'bob', userId: 'u2' }, { step: 'password', loginName: 'bob', userId: 'u2' }],
  // changePassword
  ['the new password is refused (its rules, or the two differ)', S.changePassword, { kind: 'refused' }, S.changePassword],
  ['the new password set, nothing more', S.changePassword, { kind: 'passwordChanged', secondFactor: 'none', at: AT }, loggedIn(AMR.password)],
  ['the new password set, a key to use', S.changePassword, { kind: 'passwordChanged', secondFactor: 'key', at: AT }, S.securityKey],
  ['the new password set, a key to register', S.changePassword, { kind: 'passwordChanged', secondFactor: 'enrol', at: AT }, S.enrolKey],
  ['the new password set, refused here', S.changePassword, { kind: 'passwordChanged', secondFactor: 'refused', at: AT }, S.keyElsewhere],
  // securityKey
  ['a challenge handed out', S.securityKey, { kind: 'challengeIssued', challenge: c1 }, S.securityKeyC1],
  ['a new challenge spends the one before', S.securityKeyC1, { kind: 'challengeIssued', challenge: c2 }, { ...S.securityKeyC1, challenge: c2, spent: ['c1'] }],
  ['an answer takes the challenge', S.securityKeyC1, { kind: 'challengeTaken' }, { ...S.securityKey, spent: ['c1'] }],
  ['no challenge to take', S.securityKey, { kind: 'challengeTaken' }, S.securityKey],
  ['the key accepted: pwd hwk mfa', S.securityKey, { kind: 'keyAccepted' }, loggedIn(AMR.securityKey)],
  ['the key refused', S.securityKey, { kind: 'refused' }, S.securityKey],
  ['a lost key: the recovery code', S.securityKeyC1, { kind: 'recoveryRequested' }, S.recoveryCode],
  ['decided again: still a key', S.securityKeyC1, { kind: 'secondFactorDecided', secondFactor: 'key' }, S.securityKeyC1],
  ['decided again: the keys were removed, no forceMfa: the password again', S.securityKey, { kind: 'secondFactorDecided', secondFactor: 'none' }, S.password],
  ['decided again: the keys were removed under forceMfa', S.securityKeyC1, { kind: 'secondFactorDecided', secondFactor: 'enrol' }, { step: 'enrolKey', ...passed, challenge: c1, spent: [] }],
  ['decided again: the keys work elsewhere only', S.securityKeyC1, { kind: 'secondFactorDecided', secondFactor: 'refused' }, S.keyElsewhere],
  // enrolKey
  ['a registration started, its challenge handed out', S.enrolKey, { kind: 'challengeIssued', challenge: c1, enrolmentId: 'r1' }, { ...S.enrolKey, challenge: c1, enrolmentId: 'r1' }],
  ['an answer takes the registration challenge', S.enrolKeyC1, { kind: 'challengeTaken' }, { ...S.enrolKeyC1, challenge: undefined, spent: ['c0', 'c1'] }],
  ['a first key with its recovery codes', S.enrolKeyC1, { kind: 'keyEnrolled', codesShown: true }, S.codesShown],
  ['a key without codes (not the first): pwd hwk mfa', S.enrolKey, { kind: 'keyEnrolled', codesShown: false }, loggedIn(AMR.securityKey)],
  ['the registration refused', S.enrolKeyC1, { kind: 'refused' }, S.enrolKeyC1],
  ['decided again: a key became ready meanwhile', S.enrolKeyC1, { kind: 'secondFactorDecided', secondFactor: 'key' }, { step: 'securityKey', ...passed, challenge: c1, spent: ['c0'] }],
  ['decided again: forceMfa turned off', S.enrolKey, { kind: 'secondFactorDecided', secondFactor: 'none' }, S.password],
  ['no recovery code in place of a first key', S.enrolKey, { kind: 'recoveryRequested' }, S.enrolKey],
  // codesShown
  ['the codes seen: logged in with the key just registered', S.codesShown, { kind: 'codesAcknowledged' }, loggedIn(AMR.securityKey)],
  ['nothing else moves the codes page', S.codesShown, { kind: 'keyAccepted' }, S.codesShown],
  // recoveryCode
  ['a right recovery code: pwd mfa (no key was used)', S.recoveryCode, { kind: 'codeAccepted' }, loggedIn(AMR.recoveryCode)],
  ['a wrong, spent or malformed code, or too many', S.recoveryCode, { kind: 'refused' }, S.recoveryCode],
  ['back to the key', S.recoveryCode, { kind: 'keyRequested' }, S.securityKey],
  ['no key answer on the recovery page', S.recoveryCode, { kind: 'keyAccepted' }, S.recoveryCode],
  // keyElsewhere
  ['still refused here', S.keyElsewhere, { kind: 'secondFactorDecided', secondFactor: 'refused' }, S.keyElsewhere],
  ['a key usable here now', S.keyElsewhere, { kind: 'secondFactorDecided', secondFactor: 'key' }, S.securityKey],
  ['nothing beyond the password now', S.keyElsewhere, { kind: 'secondFactorDecided', secondFactor: 'none' }, S.password],
  ['never finishes with the password alone', S.keyElsewhere, { kind: 'keyAccepted' }, S.keyElsewhere],
  // consent
  ['consent given', S.consent, { kind: 'consentDecided', allowed: true }, S.doneConsent],
  ['consent denied', S.consent, { kind: 'consentDecided', allowed: false }, { step: 'done', end: { kind: 'consent', allowed: false } }],
  ['no restart at the consent', S.consent, { kind: 'restart' }, S.consent],
  ['no name typed at the consent', S.consent, { kind: 'nameFound', loginName: 'bob' }, S.consent],
  // done
  ['the user was locked or deactivated meanwhile: the sign-in starts over', S.doneLogin, { kind: 'loginRefused' }, S.identify],
  ['a consent is not refused as a login', S.doneConsent, { kind: 'loginRefused' }, S.doneConsent],
  ['no restart once done', S.doneLogin, { kind: 'restart' }, S.doneLogin],
  // passkey (the username page offering one)
  ['the username page offers a passkey: its challenge handed out', S.identify, { kind: 'challengeIssued', challenge: c1 }, S.passkeyC1],
  ['the page again: a new challenge spends the one before', S.passkeyC1, { kind: 'challengeIssued', challenge: c2 }, { step: 'passkey', challenge: c2, spent: ['c1'] }],
  ['a passkey answer takes the challenge', S.passkeyC1, { kind: 'challengeTaken' }, { step: 'passkey', spent: ['c1'] }],
  ['a passkey signed in: its user, hwk user mfa (no second factor after it)', S.passkeyC1, { kind: 'passkeyAccepted', userId: 'u1', amr: [...AMR.passkey] }, loggedIn(AMR.passkey)],
  ['a passkey refused: the page again', S.passkeyC1, { kind: 'refused' }, S.passkeyC1],
  ['a name typed beside the passkey: its password page', S.passkeyC1, { kind: 'nameFound', loginName: 'ada', userId: 'u1' }, S.password],
  ['a name of an org without passwords: its passkey prompt', S.identify, { kind: 'passkeyRequired', loginName: 'ada' }, S.passkeyOnly],
  ['the passkey prompt from the offering page spends its challenge', S.passkeyC1, { kind: 'passkeyRequired', loginName: 'ada' }, { ...S.passkeyOnly, spent: ['c1'] }],
  ['no key answer moves the passkey page', S.passkeyC1, { kind: 'keyAccepted' }, S.passkeyC1],
  ['no passkey login from the password page', S.password, { kind: 'passkeyAccepted', userId: 'u1', amr: [...AMR.passkey] }, S.password],
  // enrolPasskey (forced enrolment, a passkey chosen)
  ['the enrolment choice: a passkey instead of a key', S.enrolKeyC1, { kind: 'enrolmentChosen', method: 'passkey' }, { step: 'enrolPasskey', ...passed, spent: ['c0', 'c1'] }],
  ['the enrolment choice: the method shown already', S.enrolKeyC1, { kind: 'enrolmentChosen', method: 'key' }, S.enrolKeyC1],
  ['the enrolment choice: back to a key', S.enrolPasskeyC1, { kind: 'enrolmentChosen', method: 'key' }, { step: 'enrolKey', ...passed, spent: ['c0', 'c1'] }],
  ['a passkey registration started', S.enrolPasskey, { kind: 'challengeIssued', challenge: c1, enrolmentId: 'p1' }, { ...S.enrolPasskey, challenge: c1, enrolmentId: 'p1' }],
  ['an answer takes the passkey registration challenge', S.enrolPasskeyC1, { kind: 'challengeTaken' }, { ...S.enrolPasskeyC1, challenge: undefined, spent: ['c0', 'c1'] }],
  ['a first passkey with its recovery codes', S.enrolPasskeyC1, { kind: 'passkeyEnrolled', codesShown: true }, { ...S.codesShown, amr: [...AMR.passkey] }],
  ['a passkey without codes: hwk user mfa', S.enrolPasskey, { kind: 'passkeyEnrolled', codesShown: false }, loggedIn(AMR.passkey)],
  ['the codes of a passkey seen: logged in with the passkey', { ...S.codesShown, amr: [...AMR.passkey] }, { kind: 'codesAcknowledged' }, loggedIn(AMR.passkey)],
  ['the passkey registration refused', S.enrolPasskeyC1, { kind: 'refused' }, S.enrolPasskeyC1],
  ['decided again: still to enrol, the passkey stays', S.enrolPasskeyC1, { kind: 'secondFactorDecided', secondFactor: 'enrol' }, S.enrolPasskeyC1],
  ['decided again: a key became ready meanwhile', S.enrolPasskeyC1, { kind: 'secondFactorDecided', secondFactor: 'key' }, { step: 'securityKey', ...passed, challenge: c1, spent: ['c0'] }],
  ['decided again: forceMfa turned off', S.enrolPasskey, { kind: 'secondFactorDecided', secondFactor: 'none' }, S.password],
  ['no key enrolment answer on the passkey enrolment', S.enrolPasskey, { kind: 'keyEnrolled', codesShown: false }, S.enrolPasskey],
  // totp
  ['a right password, an authenticator app to use', S.password, { kind: 'passwordRight', changeRequired: false, secondFactor: 'totp', at: AT }, S.totp],
  ['the new password set, an authenticator app to use', S.changePassword, { kind: 'passwordChanged', secondFactor: 'totp', at: AT }, S.totp],
  ['a right code: pwd otp mfa', S.totp, { kind: 'totpAccepted' }, loggedIn(AMR.totp)],
  ['a wrong, used or malformed code, or too many', S.totp, { kind: 'refused' }, S.totp],
  ['a lost phone: the recovery code', S.totp, { kind: 'recoveryRequested' }, S.recoveryCode],
  ['a user with a key too: the key instead', S.totp, { kind: 'keyRequested' }, S.securityKey],
  ['the key page offers the app', S.securityKeyC1, { kind: 'totpRequested' }, S.totp],
  ['decided again: the app was removed, a key usable', S.totp, { kind: 'secondFactorDecided', secondFactor: 'key' }, S.securityKey],
  ['decided again: the app was removed, nothing more', S.totp, { kind: 'secondFactorDecided', secondFactor: 'none' }, S.password],
  ['decided again: the keys were removed, the app is left', S.securityKeyC1, { kind: 'secondFactorDecided', secondFactor: 'totp' }, S.totp],
  ['no key answer on the app page', S.totp, { kind: 'keyAccepted' }, S.totp],
  ['no app from the recovery page', S.recoveryCode, { kind: 'totpRequested' }, S.recoveryCode],
  // enrolTotp (forceMfa: ENROLMENT_METHODS)
  ['the enrolment choice: an app instead of a key', S.enrolKeyC1, { kind: 'enrolmentChosen', method: 'totp' }, S.enrolTotp],
  ['the enrolment choice: back to a key from the app', S.enrolTotp, { kind: 'enrolmentChosen', method: 'key' }, S.enrolKey],
  ['the method already shown', S.enrolTotp, { kind: 'enrolmentChosen', method: 'totp' }, S.enrolTotp],
  ['a first app with its recovery codes', S.enrolTotp, { kind: 'totpEnrolled', codesShown: true }, S.totpCodesShown],
  ['an app without codes (a key exists elsewhere): pwd otp mfa', S.enrolTotp, { kind: 'totpEnrolled', codesShown: false }, loggedIn(AMR.totp)],
  ['the codes seen: logged in with the app just registered', S.totpCodesShown, { kind: 'codesAcknowledged' }, loggedIn(AMR.totp)],
  ['a wrong code at enrolment', S.enrolTotp, { kind: 'refused' }, S.enrolTotp],
  ['decided again: still nothing registered', S.enrolTotp, { kind: 'secondFactorDecided', secondFactor: 'enrol' }, S.enrolTotp],
  ['decided again: an app became ready meanwhile', S.enrolTotp, { kind: 'secondFactorDecided', secondFactor: 'totp' }, S.totp],
  ['decided again: a key became ready meanwhile', S.enrolTotp, { kind: 'secondFactorDecided', secondFactor: 'key' }, S.securityKey],
  ['decided again: an app became ready during key enrolment', S.enrolKey, { kind: 'secondFactorDecided', secondFactor: 'totp' }, S.totp],
  ['no app accepted at enrolment without its registration', S.enrolTotp, { kind: 'totpAccepted' }, S.enrolTotp],
  ['no enrolment chosen at the app page', S.totp, { kind: 'enrolmentChosen', method: 'key' }, S.totp],
  // register (self-registration, where the app's org allows it)
  ['"Register" on the username page', S.identify, { kind: 'registerRequested' }, S.register],
  ['"Register" on the username page offering a passkey', S.passkeyC1, { kind: 'registerRequested' }, S.register],
  ['no "Register" at a passkey-only prompt (a name was typed)', S.passkeyOnly, { kind: 'registerRequested' }, S.passkeyOnly],
  ['no "Register" past the password', S.securityKey, { kind: 'registerRequested' }, S.securityKey],
  ['registered, nothing more: logged in with pwd', S.register, { kind: 'registered', ...who, verificationRequired: false, secondFactor: 'none', at: AT }, loggedIn(AMR.password)],
  ['registered under forceMfa: a second factor to register first', S.register, { kind: 'registered', ...who, verificationRequired: false, secondFactor: 'enrol', at: AT }, S.enrolKey],
  ['registered, the address to verify first: no login yet', S.register, { kind: 'registered', ...who, verificationRequired: true }, S.registered],
  ['the registration refused (rules, domain, taken, too many)', S.register, { kind: 'refused' }, S.register],
  ['nothing moves the verify-first page but a restart', S.registered, { kind: 'passwordRight', changeRequired: false, secondFactor: 'none', at: AT }, S.registered],
  // forgotten password
  ['"Forgot password?" at the password page: the name asked, nothing of the account kept', S.password, { kind: 'forgotRequested' }, S.forgotPassword],
  ['"Forgot password?" for a name nobody holds: the same page', S.unknownName, { kind: 'forgotRequested' }, S.forgotUnknown],
  ['a link asked for: one page whatever the name', S.forgotPassword, { kind: 'resetRequested' }, S.resetSent],
  ['a link asked for a name nobody holds: the same page', S.forgotUnknown, { kind: 'resetRequested' }, S.resetSent],
  ['an empty name (or no mail configured) is refused', S.forgotPassword, { kind: 'refused' }, S.forgotPassword],
  ['no password is checked at the reset page', S.forgotPassword, { kind: 'passwordRight', changeRequired: false, secondFactor: 'none', at: AT }, S.forgotPassword],
  ['the sent page signs nobody in', S.resetSent, { kind: 'passwordRight', changeRequired: false, secondFactor: 'none', at: AT }, S.resetSent],
  ['the sent page sends nothing again', S.resetSent, { kind: 'resetRequested' }, S.resetSent],
  ['no forgotten password past the password', S.securityKey, { kind: 'forgotRequested' }, S.securityKey],
];

const RESTARTABLE = [S.identify, S.password, S.forgotPassword, S.resetSent, S.changePassword, S.securityKeyC1, S.enrolKeyC1, S.codesShown, S.recoveryCode, S.keyElsewhere, S.passkeyC1, S.passkeyOnly, S.enrolPasskeyC1, S.totp, S.enrolTotp, S.register, S.registered];

describe('the login flow (state × outcome → state)', () => {
  it.each(ROWS)('%s', (_name, from, outcome, to) => {
    const before = structuredClone(from);
    expect(next(from, outcome)).toEqual(to);
    // Pure: the state it was given is left as it was.
    expect(from).toEqual(before);
  });

  it.each(RESTARTABLE.map((s) => [s.step, s] as const))('restart from %s: the username page', (_step, from) => {
    expect(next(from, { kind: 'restart' })).toEqual(S.identify);
  });

  it.each(RESTARTABLE.map((s) => [s.step, s] as const))('a new name typed at %s: its password page', (_step, from) => {
    expect(next(from, { kind: 'nameFound', loginName: 'bob' })).toEqual({ step: 'password', loginName: 'bob' });
  });

  it('an outcome without a row moves nothing (the same state comes back)', () => {
    const unmoved: [LoginState, LoginOutcome][] = [
      [S.identify, { kind: 'keyAccepted' }],
      [S.identify, { kind: 'passwordRight', changeRequired: true }],
      [S.password, { kind: 'codeAccepted' }],
      [S.changePassword, { kind: 'passwordRight', changeRequired: true }],
      [S.securityKey, { kind: 'codeAccepted' }],
      [S.consent, { kind: 'keyAccepted' }],
    ];
    for (const [from, outcome] of unmoved) expect(next(from, outcome)).toBe(from);
  });

  it('every state of the union has rows', () => {
    const covered = new Set(ROWS.map(([, from]) => from.step));
    expect([...covered].sort()).toEqual([...LOGIN_STEPS].sort());
  });

  it('the newest few spent challenges are remembered', () => {
    let state: LoginState = S.securityKey;
    for (let n = 0; n < SPENT_KEPT + 5; n++) state = next(state, { kind: 'challengeIssued', challenge: { value: `x${n}`, expiresAt: 0 } });
    state = next(state, { kind: 'challengeTaken' });
    expect(state.step === 'securityKey' && state.spent.length).toBe(SPENT_KEPT);
    expect(state.step === 'securityKey' && state.spent.at(-1)).toBe(`x${SPENT_KEPT + 4}`);
  });

  it('amr per RFC 8176', () => {
    expect(AMR.securityKey).toEqual(['pwd', 'hwk', 'mfa']);
    // A recovery code in place of a lost key: RFC 8176 has no value for it, and it is no key.
    expect(AMR.recoveryCode).toEqual(['pwd', 'mfa']);
    expect(AMR.totp).toEqual(['pwd', 'otp', 'mfa']);
  });
});

describe('the stored state', () => {
  it('belongs to a user once the password was right, never for a name merely typed', () => {
    expect(ownerOf(S.identify)).toBeUndefined();
    expect(ownerOf(S.password)).toBeUndefined();
    // Asking for a reset link makes the sign-in nobody's: nothing was proven.
    expect(ownerOf(S.forgotPassword)).toBeUndefined();
    expect(ownerOf(S.resetSent)).toBeUndefined();
    for (const s of [S.changePassword, S.securityKey, S.enrolKey, S.codesShown, S.recoveryCode, S.keyElsewhere]) expect(ownerOf(s)).toBe('u1');
    // A passkey page belongs to nobody until a passkey named its user; its enrolment is past the password.
    expect(ownerOf(S.passkeyOnly)).toBeUndefined();
    expect(ownerOf(S.enrolPasskey)).toBe('u1');
  });

  it('reads back only a state (not a done one, nor another shape)', () => {
    expect(asLoginState(undefined)).toBeUndefined();
    expect(asLoginState({ loginName: 'ada', userId: 'u1' })).toBeUndefined();
    expect(asLoginState({ step: 'done', end: { kind: 'login', userId: 'u1', amr: [] } })).toBeUndefined();
    expect(asLoginState(S.securityKeyC1)).toEqual(S.securityKeyC1);
    // Every state of the table reads back as itself.
    for (const state of Object.values(S)) if (state.step !== 'done') expect(asLoginState(state), state.step).toEqual(state);
    // A stored state missing what its step needs (another version's shape, a damaged row) is no state: the sign-in starts over.
    expect(asLoginState({ step: 'securityKey', loginName: 'ada', userId: 'u1', passwordAt: AT })).toBeUndefined();
    expect(asLoginState({ step: 'securityKey', ...passed, spent: 'c0' })).toBeUndefined();
    expect(asLoginState({ step: 'securityKey', ...passed, spent: [], challenge: { value: 1 } })).toBeUndefined();
    expect(asLoginState({ step: 'totp', loginName: 'ada' })).toBeUndefined();
    expect(asLoginState({ step: 'password' })).toBeUndefined();
    expect(asLoginState({ step: 'toString' })).toBeUndefined();
  });
});

describe('an identity waiting to be linked', () => {
  const link = { idpId: 'i1', subject: 'up-7', name: 'Corp SSO', binding: 'b1' };
  const withLink = <S extends LoginState>(s: S): LoginState => ({ ...s, link });

  it('waits on the username page after the callback, and goes along through the password and second factor into the login', () => {
    const waiting = next(S.identify, { kind: 'externalUnlinked', link });
    expect(waiting).toEqual({ step: 'identify', link });
    const named = next(waiting, { kind: 'nameFound', ...who });
    expect(named).toEqual(withLink(S.password));
    const keyed = next(named, { kind: 'passwordRight', changeRequired: false, secondFactor: 'key', at: AT });
    expect(keyed).toEqual(withLink(S.securityKey));
    expect(next(keyed, { kind: 'keyAccepted' })).toEqual({ step: 'done', end: { kind: 'login', userId: 'u1', amr: [...AMR.securityKey], link } });
    // A password alone, a new password first, a passkey: each ends in a login that carries it.
    expect(next(named, { kind: 'passwordRight', changeRequired: false, secondFactor: 'none', at: AT })).toEqual({ step: 'done', end: { kind: 'login', userId: 'u1', amr: [...AMR.password], link } });
    expect(next(withLink(S.changePassword), { kind: 'passwordChanged', secondFactor: 'totp', at: AT })).toEqual(withLink(S.totp));
    expect(next(withLink(S.passkey), { kind: 'passkeyAccepted', userId: 'u1', amr: [...AMR.passkey] })).toEqual({ step: 'done', end: { kind: 'login', userId: 'u1', amr: [...AMR.passkey], link } });
  });

  it('is dropped where the person goes another way: starts over, registers, asks for a reset, another provider', () => {
    const waiting = withLink(S.identify);
    expect(next(waiting, { kind: 'restart' })).toEqual(S.identify);
    expect(next(waiting, { kind: 'registerRequested' })).toEqual(S.register);
    expect(next(withLink(S.password), { kind: 'forgotRequested' })).toEqual(S.forgotPassword);
    expect(next(waiting, { kind: 'externalStarted', idpId: 'i1', state: 'uid.s1', nonce: 'n1', verifier: 'v1', at: AT, binding: 'b1' })).toEqual(S.external);
    // A later unlinked answer replaces it; nothing else sets one.
    const other = { idpId: 'i2', subject: 'up-8', name: 'Other', binding: 'b2' };
    expect(next(waiting, { kind: 'externalUnlinked', link: other })).toEqual({ step: 'identify', link: other });
    expect(next(S.password, { kind: 'externalUnlinked', link })).toEqual(S.password);
  });

  it('moves nothing where nothing happened (the same state, so nothing is saved), and never rides another provider\u2019s login', () => {
    const waiting = withLink(S.password);
    expect(next(waiting, { kind: 'refused' })).toBe(waiting);
    expect(next(waiting, { kind: 'passwordWrong' })).toBe(waiting);
    expect(next(withLink(S.identify), { kind: 'externalSignedIn', userId: 'u1', amr: ['fed'] })).toEqual(loggedIn(['fed']));
  });

  it('is read back with its state, and a damaged one, or one on a step it never waits on, makes no state', () => {
    expect(asLoginState(withLink(S.totp))).toEqual(withLink(S.totp));
    expect(asLoginState({ ...S.identify, link: { idpId: 'i1', subject: 7, name: 'x', binding: 'b1' } })).toBeUndefined();
    expect(asLoginState({ ...S.identify, link: { idpId: 'i1', subject: 's', name: 'x' } })).toBeUndefined();
    for (const s of [S.register, S.forgotPassword, S.external, S.resetSent]) expect(asLoginState({ ...s, link }), s.step).toBeUndefined();
  });
});

describe('Keyhold\u2019s own second factor after another provider', () => {
  const needs = (secondFactor: 'key' | 'enrol' | 'totp' | 'none' | 'refused') => ({ kind: 'externalNeedsFactor' as const, ...who, amr: ['fed'], secondFactor, at: AT });

  it('goes on to the factor the user has, and the login says fed, never pwd', () => {
    const totp = next(S.identify, needs('totp'));
    expect(totp).toEqual({ ...S.totp, fed: ['fed'] });
    expect(next(totp, { kind: 'totpAccepted' })).toEqual(loggedIn(['fed', 'otp', 'mfa']));
    const key = next(S.identify, needs('key'));
    expect(key).toEqual({ ...S.securityKey, fed: ['fed'] });
    expect(next(key, { kind: 'keyAccepted' })).toEqual(loggedIn(['fed', 'hwk', 'mfa']));
    // A lost key: a recovery code, still without a password.
    expect(next(next(key, { kind: 'recoveryRequested' }), { kind: 'codeAccepted' })).toEqual(loggedIn(['fed', 'mfa']));
  });

  it('a user without a factor adds one (an app, then its codes shown) and signs in with it', () => {
    const enrol = next(S.identify, needs('enrol'));
    expect(enrol).toEqual({ ...S.enrolKey, fed: ['fed'] });
    const app = next(enrol, { kind: 'enrolmentChosen', method: 'totp' });
    expect(app).toEqual({ ...S.enrolTotp, fed: ['fed'] });
    const codes = next(app, { kind: 'totpEnrolled', codesShown: true });
    expect(codes).toEqual({ ...S.totpCodesShown, fed: ['fed'] });
    expect(next(codes, { kind: 'codesAcknowledged' })).toEqual(loggedIn(['fed', 'otp', 'mfa']));
  });

  it('never a login without the factor: "none" (the policy changed meanwhile) starts over; starting over drops it; no step but the first page takes it', () => {
    expect(next(S.identify, needs('none'))).toEqual(S.identify);
    expect(next({ ...S.totp, fed: ['fed'] }, { kind: 'restart' })).toEqual(S.identify);
    expect(next(S.password, needs('totp'))).toBe(S.password);
    expect(asLoginState({ ...S.totp, fed: ['fed'] })).toEqual({ ...S.totp, fed: ['fed'] });
    expect(asLoginState({ ...S.password, fed: ['fed'] })).toBeUndefined();
    expect(asLoginState({ ...S.totp, fed: ['pwd'] })).toBeUndefined();
  });
});
