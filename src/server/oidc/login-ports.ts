// The login's ports (login.ts LoginPorts) over Keyhold: which user a login name
// names and whether the password is theirs (issue 17 part A's loginUser /
// verifyPassword, src/queries/passwords.ts), the password change as the
// user's own SetPassword command.
import type { Commands } from '../../commands/index.js';
import type { Language } from '../../domain/i18n/language.js';
import { loginUser, verifyPassword } from '../../queries/passwords.js';
import type { ReadModel } from '../../queries/read-model.js';
import { toStatus } from '../status.js';
import type { LoginPorts, PasswordVerdict } from './login.js';
import { FREE_FAILURES, ipFailures, waitSeconds, WINDOW_SECONDS } from './throttle.js';

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
  read: Pick<ReadModel, 'usersByLoginName' | 'passwordOf' | 'user'>,
  commands: Pick<Commands, 'setPassword' | 'recordLogin'>,
  mayLogIn: LoginPorts['mayLogIn'],
  /** The user's recent wrong passwords, newest first (store/oidc-store.ts recentPasswordFailures). */
  recentFailures: (userId: string, windowSeconds: number) => Promise<Date[]>,
): LoginPorts {
  const check = passwordCheckOf(read);
  const byIp = ipFailures();
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
        byIp.failed(clientIp);
        // A wrong password for a user is an event (the audit trail of guessing; the throttle counts them).
        if (userId) await commands.recordLogin({ userId, clientId, outcome: 'wrongPassword' });
      }
      return verdict;
    },
    async changePassword(userId, newPassword, lang: Language) {
      const user = await read.user(userId);
      if (!user) return { ok: false, problem: 'unknown user' };
      // The user's own change (self needs no permission), as SetPassword over the API would be.
      const caller = { userId, orgId: user.orgId, tokenId: 'login', memberships: [] };
      try {
        await commands.setPassword({ caller }, { userId, password: newPassword, changeRequired: false });
        return { ok: true };
      } catch (e) {
        // The reason in the user's language (the password rules name what is wrong).
        return { ok: false, problem: toStatus(e, lang).error.rawMessage };
      }
    },
    mayLogIn,
    loggedIn: (userId, clientId) => commands.recordLogin({ userId, clientId, outcome: 'succeeded', amr: ['pwd'] }),
  };
}
