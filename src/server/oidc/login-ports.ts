// The login's ports (login.ts LoginPorts) over Keyhold: which user a login name
// names and whether the password is theirs (loginUser / checkPassword,
// src/queries/passwords.ts), the password change as the
// user's own SetPassword command. Every password and recovery code is
// reserved in its guessing budgets before it is checked (guess-buckets.ts).
import type { Caller, Commands } from '../../commands/index.js';
import type { WebAuthnSettings } from '../../commands/ports.js';
import { BUCKETS, FIRST_DELAY_SECONDS, type AttemptOutcome } from '../../domain/identity/attempt-budget.js';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { Language } from '../../domain/i18n/language.js';
import { checkPassword, loginUser, type PasswordCheck } from '../../queries/passwords.js';
import type { PasswordFacts, ReadModel } from '../../queries/read-model.js';
import type { AttemptBudgets, FinishedBucket, Reservation } from '../../store/attempt-budgets.js';
import { toStatus } from '../status.js';
import { accountOf, passwordBuckets, recoveryBuckets } from './guess-buckets.js';
import type { LoginPorts, PasswordVerdict } from './login.js';
import type { IdentityObserver, LoginFailure } from '../metrics.js';

const NO_OBSERVER: Pick<IdentityObserver, 'loginSucceeded' | 'loginFailed' | 'loginThrottled'> = { loginSucceeded: () => {}, loginFailed: () => {}, loginThrottled: () => {} };

const VERDICTS: Readonly<Record<Exclude<PasswordCheck['result'], 'ok'>, PasswordVerdict>> = {
  wrong: { ok: false, reason: 'wrong' },
  locked: { ok: false, reason: 'locked' },
  'no password': { ok: false, reason: 'no-password' },
};

/**
 * Why a password step failed, for the operator (metrics.ts): what the user
 * is not told apart (login.ts) — a name nobody holds, a locked or a
 * deactivated account, one without a password.
 */
function failureOf(check: Exclude<PasswordCheck['result'], 'ok'>, facts: PasswordFacts | undefined): LoginFailure {
  if (!facts) return 'unknown_user';
  if (check === 'locked') return facts.state === 'locked' ? 'locked' : 'inactive';
  if (check === 'no password') return 'no_password';
  return 'wrong_password';
}

/**
 * Runs a reserved attempt and gives its place back with its outcome — also
 * when something after the check fails (it was tried: it counts), and as
 * `none` when the check itself never ran.
 */
async function spend<T>(held: Reservation, attempt: (counts: (outcome: AttemptOutcome) => void) => Promise<T>): Promise<{ result: T; finished: FinishedBucket[] }> {
  let outcome: AttemptOutcome = 'none';
  try {
    const result = await attempt((o) => (outcome = o));
    return { result, finished: await held.finish(outcome) };
  } catch (err) {
    await held.finish(outcome).catch(() => {});
    throw err;
  }
}

/** The budgets whose failures just reached their free allowance (each once per streak: the increments are atomic). */
const engaged = (finished: readonly FinishedBucket[]) => finished.filter((b) => b.failures === BUCKETS[b.kind].free).map((b) => b.kind);

export function loginPorts(
  read: Pick<ReadModel, 'usersByLoginName' | 'passwordOf' | 'user' | 'u2fTokensOf' | 'maxPasswordAttemptsOf'>,
  commands: Pick<Commands, 'setPassword' | 'recordLogin' | 'recordOidc' | 'recordAnonymousThrottle' | 'useU2f' | 'registerU2f' | 'verifyU2fRegistration' | 'useRecoveryCode'>,
  mayLogIn: LoginPorts['mayLogIn'],
  /** Every guess at the login (passwords, recovery codes) is reserved here before it is checked (store/attempt-budgets.ts). */
  budgets: Pick<AttemptBudgets, 'reserve'>,
  /** The security-key step's settings and the org's login policy. */
  second: {
    webauthn: () => WebAuthnSettings;
    forceMfa: (orgId: string) => Promise<boolean>;
  },
  /** Each login's outcome, for the operator (metrics.ts). */
  observer: Pick<IdentityObserver, 'loginSucceeded' | 'loginFailed' | 'loginThrottled'> = NO_OBSERVER,
): LoginPorts {
  /** The user acting on its own keys at login, as RegisterU2F / VerifyU2FRegistration over the API would (self needs no permission). */
  const selfCaller = async (userId: string): Promise<Caller | undefined> => {
    const user = await read.user(userId);
    return user ? { userId, orgId: user.orgId, tokenId: 'login', memberships: [] } : undefined;
  };

  /** The failure that engages a budget's delays is an event (once per streak, never the password): the user's, or the instance's for a name nobody holds. */
  async function recordEngaged(finished: readonly FinishedBucket[], userId: string | undefined, clientId: string, clientIp: string): Promise<void> {
    for (const kind of engaged(finished)) {
      const by = kind === 'password.address' ? 'ip' : 'account';
      if (userId) {
        await commands.recordOidc(userId, { type: 'user.login.throttled', payload: { clientId, by, ...(by === 'ip' ? { clientIp } : {}), waitSeconds: FIRST_DELAY_SECONDS } });
      } else if (by === 'ip') {
        await commands.recordAnonymousThrottle({ clientId, clientIp, waitSeconds: FIRST_DELAY_SECONDS });
      }
    }
  }

  return {
    async findLoginUser(loginName, orgId) {
      const found = await loginUser(read, loginName, orgId);
      // A name two orgs share logs in only with the org scope (urn:keyhold:iam:org:id:{orgId}).
      return found.found === 'one' && found.user.kind === 'human' ? { id: found.user.id, username: found.user.username } : undefined;
    },
    async verifyPassword({ userId, loginName, password, client, clientId }) {
      const facts = userId ? await read.passwordOf(userId) : undefined;
      const user = facts ? userId : undefined;
      // Only a check that may lock (an active user with a password) counts against the lockout policy.
      const checked = facts?.state === 'active' && facts.passwordHash ? facts : undefined;
      const maxAttempts = checked ? await read.maxPasswordAttemptsOf(checked.orgId) : 0;
      // Reserved before any verification: a guess beyond the budget is not even tried.
      const lockout = user && maxAttempts > 0 ? { userId: user, maxAttempts } : undefined;
      const held = await budgets.reserve(passwordBuckets(accountOf(user, loginName), client, lockout));
      if (!held.ok) {
        observer.loginThrottled();
        return { ok: false, reason: 'wrong', retryAfterSeconds: held.waitSeconds };
      }
      let failure: LoginFailure | undefined;
      const { result: verdict, finished } = await spend(held, async (counts): Promise<PasswordVerdict> => {
        // Under a lockout policy the facts are read again now that the place is held: a failure that
        // locked the user was written before its place was given back, so this check sees the lock
        // (and compares nothing) — the policy's count of checks stays exact across processes.
        const checkedFacts = lockout ? await read.passwordOf(lockout.userId) : facts;
        const check = await checkPassword(checkedFacts, password);
        counts(check.result === 'ok' ? 'success' : 'failure');
        if (check.result === 'ok') return { ok: true, changeRequired: check.changeRequired };
        failure = failureOf(check.result, checkedFacts);
        if (check.result !== 'wrong' || !user || !checked) return VERDICTS[check.result];
        // A wrong password is an event of the user (the audit trail; the lockout policy counts them),
        // recorded before the reservation is given back, so the policy's bucket never misses it.
        const { locked } = await commands.recordLogin({ userId: user, clientId, outcome: 'wrongPassword' });
        // The one that reaches the org's lockout policy locks the user: say so, so the user stops trying.
        return locked ? { ok: false, reason: 'lockedOut' } : VERDICTS.wrong;
      });
      if (failure) observer.loginFailed(failure);
      await recordEngaged(finished, user, clientId, client.address);
      return verdict;
    },
    async changePassword(userId, newPassword, lang: Language) {
      const caller = await selfCaller(userId);
      if (!caller) return { ok: false, problem: 'unknown user' };
      // The user's own change (self needs no permission), as SetPassword over the API would be.
      try {
        await commands.setPassword({ caller }, { userId, password: newPassword, changeRequired: false });
        return { ok: true };
      } catch (e) {
        // The reason in the user's language (the password rules name what is wrong).
        return { ok: false, problem: toStatus(e, lang).error.rawMessage };
      }
    },
    mayLogIn,
    async loggedIn(userId, clientId, _clientIp, amr) {
      // The user decider refuses a user that is no longer active (locked, deactivated or removed while
      // this login ran, e.g. by a wrong password racing this right one): then the login does not finish.
      try {
        await commands.recordLogin({ userId, clientId, outcome: 'succeeded', amr });
        observer.loginSucceeded();
        return true;
      } catch (e) {
        if (e instanceof KeyholdError && (e.reason === 'USER_NOT_ACTIVE' || e.reason === 'USER_NOT_FOUND')) {
          observer.loginFailed(e.reason === 'USER_NOT_FOUND' ? 'unknown_user' : 'inactive');
          return false;
        }
        throw e;
      }
    },
    async keysOf(userId) {
      const tokens = await read.u2fTokensOf(userId);
      return tokens.flatMap((k) => (k.state === 'ready' && k.credentialId ? [{ credentialId: k.credentialId, transports: k.transports ?? [], rpId: k.rpId }] : []));
    },
    useKey: (input) => commands.useU2f(input),
    async mfaRequired(userId) {
      const user = await read.user(userId);
      return user ? second.forceMfa(user.orgId) : false;
    },
    async startEnrollment(userId, rpId) {
      const caller = (await selfCaller(userId))!;
      const started = await commands.registerU2f({ caller }, { userId, domain: rpId });
      return { u2fId: started.u2fId, options: started.creationOptions };
    },
    async finishEnrollment(userId, u2fId, credential, tokenName, lang) {
      const caller = await selfCaller(userId);
      if (!caller) return { ok: false, problem: 'unknown user' };
      try {
        const { recoveryCodes } = await commands.verifyU2fRegistration({ caller }, { userId, u2fId, credential, tokenName });
        return { ok: true, recoveryCodes };
      } catch (e) {
        // Every refusal (expired, malformed, already registered…) in the user's language.
        return { ok: false, problem: toStatus(e, lang).error.rawMessage };
      }
    },
    webauthn: () => second.webauthn(),
    async useRecoveryCode(userId, typed, client, clientId) {
      // Reserved before any check: a guess beyond the budget is not even tried (nor recorded).
      const held = await budgets.reserve(recoveryBuckets(userId, client));
      if (!held.ok) return { ok: false, reason: 'RECOVERY_CODE_SLOW_DOWN', retryAfterSeconds: held.waitSeconds };
      const { result } = await spend(held, async (counts) => {
        const used = await commands.useRecoveryCode({ userId, clientId, typed });
        // Input that is no code at all tried nothing: it gives its place back uncounted.
        counts(used.ok ? 'success' : used.reason === 'RECOVERY_CODE_WRONG' ? 'failure' : 'none');
        return used;
      });
      return result;
    },
  };
}
