// The login's ports (login.ts LoginPorts) over Keyhold: which user a login name
// names and whether the password is theirs (issue 17 part A's loginUser /
// verifyPassword, src/queries/passwords.ts), the password change as the
// user's own SetPassword command.
import type { Caller, Commands } from '../../commands/index.js';
import type { WebAuthnSettings } from '../../commands/ports.js';
import type { Language } from '../../domain/i18n/language.js';
import { loginUser, verifyPassword } from '../../queries/passwords.js';
import type { ReadModel } from '../../queries/read-model.js';
import { toStatus } from '../status.js';
import type { LoginPorts, PasswordVerdict } from './login.js';
import { FIRST_DELAY_SECONDS, FREE_FAILURES, ipFailures, waitSeconds, WINDOW_SECONDS } from './throttle.js';

/** THE password check the login uses (one line to swap). */
export type PasswordCheck = (userId: string, password: string, clientIp: string, clientId: string) => Promise<PasswordVerdict>;

export function passwordCheckOf(read: Pick<ReadModel, 'passwordOf'>): PasswordCheck {
  return async (userId, password) => {
    const check = await verifyPassword(read, userId, password);
    switch (check.result) {
      case 'ok':
        return { ok: true, changeRequired: check.changeRequired };
      case 'locked':
        return { ok: false, reason: 'locked' };
      case 'no password':
        return { ok: false, reason: 'no-password' };
      default:
        return { ok: false, reason: 'wrong' };
    }
  };
}

export function loginPorts(
  read: Pick<ReadModel, 'usersByLoginName' | 'passwordOf' | 'user' | 'u2fTokensOf'>,
  commands: Pick<Commands, 'setPassword' | 'recordLogin' | 'recordOidc' | 'recordAnonymousThrottle' | 'useU2f' | 'registerU2f' | 'verifyU2fRegistration' | 'useRecoveryCode'>,
  mayLogIn: LoginPorts['mayLogIn'],
  /** The user's recent wrong passwords, newest first (store/oidc-store.ts recentPasswordFailures). */
  recentFailures: (userId: string, windowSeconds: number) => Promise<Date[]>,
  /**
   * The security-key step's settings, the org's login policy, and the user's
   * recent wrong recovery codes, newest first (store/oidc-store.ts recentRecoveryCodeFailures).
   */
  second: {
    webauthn: () => WebAuthnSettings;
    forceMfa: (orgId: string) => Promise<boolean>;
    recoveryFailures?: (userId: string, windowSeconds: number) => Promise<Date[]>;
  },
): LoginPorts {
  /** The user acting on its own keys at login, as RegisterU2F / VerifyU2FRegistration over the API would (self needs no permission). */
  const selfCaller = async (userId: string): Promise<Caller | undefined> => {
    const user = await read.user(userId);
    return user ? { userId, orgId: user.orgId, tokenId: 'login', memberships: [] } : undefined;
  };
  const check = passwordCheckOf(read);
  const byIp = ipFailures();
  // Recovery codes are throttled as passwords are, on their own counters.
  const recoveryByIp = ipFailures();
  return {
    async findLoginUser(loginName, orgId) {
      const found = await loginUser(read, loginName, orgId);
      // A name two orgs share logs in only with the org scope (urn:keyhold:iam:org:id:{orgId}).
      return found.found === 'one' && found.user.kind === 'human' ? { id: found.user.id, username: found.user.username } : undefined;
    },
    async verifyPassword(userId, password, clientIp, clientId) {
      // Throttled before any verification: a guess during the delay is not even tried.
      const failures = userId ? await recentFailures(userId, WINDOW_SECONDS) : [];
      const wait = Math.max(waitSeconds(failures.length, FREE_FAILURES.account, failures[0]), byIp.wait(clientIp));
      if (wait > 0) return { ok: false, reason: 'wrong', retryAfterSeconds: wait };
      const verdict = await check(userId, password, clientIp, clientId);
      if (!verdict.ok && verdict.reason === 'wrong') {
        const fromIp = byIp.failed(clientIp);
        if (!userId) {
          // Spraying names nobody holds: the IP's throttle engaging is the instance's event.
          if (fromIp === FREE_FAILURES.ip) await commands.recordAnonymousThrottle({ clientId, clientIp, waitSeconds: FIRST_DELAY_SECONDS });
          return verdict;
        }
        // A wrong password for a user is an event (the audit trail of guessing; the throttle counts them).
        const { locked } = await commands.recordLogin({ userId, clientId, outcome: 'wrongPassword' });
        // The failure that engages the throttle is an event too (once per streak, not per refused try).
        const throttled = (by: 'account' | 'ip') =>
          commands.recordOidc(userId, { type: 'user.login.throttled', payload: { clientId, by, ...(by === 'ip' ? { clientIp } : {}), waitSeconds: FIRST_DELAY_SECONDS } });
        if (failures.length + 1 === FREE_FAILURES.account) await throttled('account');
        if (fromIp === FREE_FAILURES.ip) await throttled('ip');
        // The one that reaches the org's lockout policy locks the user: say so, so the user stops trying.
        if (locked) return { ok: false, reason: 'lockedOut' };
      }
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
      await commands.recordLogin({ userId, clientId, outcome: 'succeeded', amr });
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
    async useRecoveryCode(userId, typed, clientIp, clientId) {
      // Throttled before any check: a guess during the delay is not even tried (nor recorded).
      const failures = second.recoveryFailures ? await second.recoveryFailures(userId, WINDOW_SECONDS) : [];
      const wait = Math.max(waitSeconds(failures.length, FREE_FAILURES.account, failures[0]), recoveryByIp.wait(clientIp));
      if (wait > 0) return { ok: false, reason: 'RECOVERY_CODE_SLOW_DOWN', retryAfterSeconds: wait };
      const used = await commands.useRecoveryCode({ userId, clientId, typed });
      if (!used.ok && used.reason === 'RECOVERY_CODE_WRONG') recoveryByIp.failed(clientIp);
      return used;
    },
  };
}
