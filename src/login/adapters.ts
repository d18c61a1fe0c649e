// The login's adapters (ports.ts LoginPorts) over Keyhold: plain adapters with
// no rule of their own. Which user a login name names (loginUser,
// src/queries/passwords.ts); the password and recovery-code checks are
// commands (src/commands/login/); the password change and a key's enrolment
// are the user's own SetPassword / RegisterU2F / VerifyU2FRegistration.
import type { Caller, Commands } from '../commands/index.js';
import type { WebAuthnSettings } from '../commands/ports.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import type { Language } from '../domain/i18n/language.js';
import { loginUser } from '../queries/passwords.js';
import { loginFactorsOf } from '../queries/login-policy.js';
import { hasReadyTotp } from '../queries/totp.js';
import type { ReadModel, U2fView } from '../queries/read-model.js';
import type { ReadyKey } from './relying-parties.js';
import type { GuessBudgets } from '../commands/ports.js';
import { checkLoginPassword } from '../commands/login/check-password.js';
import { checkRecoveryCode } from '../commands/login/check-recovery-code.js';
import { checkTotp } from '../commands/login/check-totp.js';
import { refusalText } from '../domain/errors/refusal-text.js';
import { renderMessage } from '../domain/errors/reasons.js';
import { ConcurrencyConflict } from '../commands/ports.js';
import type { LoginInteraction, LoginPorts } from './ports.js';
import type { PasswordResetPorts } from './password-reset.js';
import type { LoginObserver } from './observer.js';

const NO_EXTERNAL: Pick<LoginPorts, 'offeredProviders' | 'startExternal' | 'finishExternal' | 'linkPending'> = {
  offeredProviders: async () => [],
  startExternal: async () => undefined,
  finishExternal: async () => ({ kind: 'problem', text: 'externalRefused', name: '' }),
  linkPending: async () => false,
};

const NO_OBSERVER: Pick<LoginObserver, 'loginSucceeded' | 'loginFailed' | 'loginThrottled'> = { loginSucceeded: () => {}, loginFailed: () => {}, loginThrottled: () => {} };

/**
 * A refused write as the page says it: a command's refusal by its reason, and a write that lost
 * every retry to concurrent ones as that (the person may simply try again). Anything else is no
 * refusal and goes on: the database's unavailability to the login's 503 page.
 */
function problemText(thrown: unknown, lang: Language): string {
  if (thrown instanceof ConcurrencyConflict) return renderMessage('CONCURRENT_MODIFICATION', lang, {});
  return refusalText(thrown, lang);
}

/** The keys a login may ask for: ready ones, with their credential id. */
const readyKeys = (tokens: readonly U2fView[]): ReadyKey[] =>
  tokens.flatMap((k) => (k.state === 'ready' && k.credentialId ? [{ credentialId: k.credentialId, transports: k.transports ?? [], rpId: k.rpId }] : []));

export function loginPorts(
  read: Pick<ReadModel, 'usersByLoginName' | 'passwordOf' | 'user' | 'secondFactorsOf' | 'maxPasswordAttemptsOf' | 'loginPolicyOf' | 'defaultOrgId' | 'totpOf' | 'ownerOfProject'>,
  commands: Pick<
    Commands,
    | 'setPassword'
    | 'registerHumanUser'
    | 'recordLogin'
    | 'recordOidc'
    | 'recordAnonymousThrottle'
    | 'useU2f'
    | 'registerU2f'
    | 'verifyU2fRegistration'
    | 'useRecoveryCode'
    | 'usePasskey'
    | 'registerPasskey'
    | 'verifyPasskeyRegistration'
    | 'useTotp'
    | 'useEmailCode'
    | 'registerTotp'
    | 'verifyTotpRegistration'
    | 'pendingTotp'
  >,
  mayLogIn: LoginPorts['mayLogIn'],
  /** Every guess at the login (passwords, recovery codes) is reserved here before it is checked (store/attempt-budgets.ts). */
  budgets: GuessBudgets,
  /** The security-key step's settings and the org's login policy. */
  second: {
    webauthn: () => WebAuthnSettings;
    forceMfa: (orgId: string) => Promise<boolean>;
  },
  /** Each login's outcome, for the operator (metrics.ts). */
  observer: Pick<LoginObserver, 'loginSucceeded' | 'loginFailed' | 'loginThrottled'> = NO_OBSERVER,
  /** Other identity providers (src/server/idp/login-ports.ts); none: no "Continue with …". */
  external: Pick<LoginPorts, 'offeredProviders' | 'startExternal' | 'finishExternal' | 'linkPending'> = NO_EXTERNAL,
): Omit<LoginPorts, keyof PasswordResetPorts | 'mailAddressCode'> {
  /** The user acting on its own keys at login, as RegisterU2F / VerifyU2FRegistration over the API would (self needs no permission). */
  const selfCaller = async (userId: string): Promise<Caller | undefined> => {
    const user = await read.user(userId);
    return user ? { userId, orgId: user.orgId, tokenId: 'login', memberships: [] } : undefined;
  };

  // Asked by registration and by the offered providers for one page: one read per request (the
  // interaction's view is made per request), as the login's statement budget counts it.
  const signInOrgs = new WeakMap<object, Promise<string | undefined>>();
  function orgOfSignIn(interaction: Pick<LoginInteraction, 'orgId' | 'app'>): Promise<string | undefined> {
    let org = signInOrgs.get(interaction);
    if (!org) {
      org = interaction.orgId !== undefined || !interaction.app.projectId ? Promise.resolve(interaction.orgId) : read.ownerOfProject(interaction.app.projectId);
      signInOrgs.set(interaction, org);
    }
    return org;
  }

  return {
    ...external,
    async findLoginUser(loginName, orgId) {
      const found = await loginUser(read, loginName, orgId);
      // A name two orgs share logs in only with the org scope (urn:keyhold:iam:org:id:{orgId}).
      return found.found === 'one' && found.user.kind === 'human' ? { id: found.user.id, username: found.user.username } : undefined;
    },
    verifyPassword: (attempt) => checkLoginPassword({ read, commands, budgets, observer }, attempt),
    verifyEmailCode: (userId, code, address) => commands.useEmailCode({ userId, code, actor: userId }, { address }),
    async changePassword(userId, newPassword, lang: Language) {
      const caller = await selfCaller(userId);
      if (!caller) return { ok: false, problem: 'unknown user' };
      // The user's own change (self needs no permission), as SetPassword over the API would be.
      try {
        await commands.setPassword({ caller }, { userId, password: newPassword, changeRequired: false });
        return { ok: true };
      } catch (e) {
        // The reason in the user's language (the password rules name what is wrong).
        return { ok: false, problem: problemText(e, lang) };
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
        if (e instanceof KeyholdError && e.reason === 'REGISTRATION_UNVERIFIED') return 'unverified';
        if (e instanceof KeyholdError && (e.reason === 'USER_NOT_ACTIVE' || e.reason === 'USER_NOT_FOUND')) {
          observer.loginFailed(e.reason === 'USER_NOT_FOUND' ? 'unknown_user' : 'inactive');
          return false;
        }
        throw e;
      }
    },
    async secondFactorsOf(userId) {
      const { keys, totpReady } = await read.secondFactorsOf(userId);
      return { keys: readyKeys(keys), hasTotp: totpReady };
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
        return { ok: false, problem: problemText(e, lang) };
      }
    },
    webauthn: () => second.webauthn(),
    useRecoveryCode: (userId, typed, client, clientId) => checkRecoveryCode({ commands, budgets }, userId, typed, client, clientId),
    // An org scope naming no org reads no policy: the default's rules (loginFactorsOf).
    loginFactors: async (orgId) => loginFactorsOf(read, orgId ?? (await read.defaultOrgId()) ?? ''),
    async userLoginFactors(userId) {
      const user = await read.user(userId);
      // A machine user never signs in at the login, whatever credential names it.
      return user?.kind === 'human' ? loginFactorsOf(read, user.orgId) : undefined;
    },
    // The user's org decides whether passkeys sign in, inside the check: a refused passkey records no use.
    usePasskey: (input) => commands.usePasskey({ ...input, passkeysAllowed: async (orgId) => (await loginFactorsOf(read, orgId)).passkeyAllowed }),
    async startPasskeyEnrollment(userId, rpId) {
      const caller = (await selfCaller(userId))!;
      const started = await commands.registerPasskey({ caller }, { userId, domain: rpId });
      return { passkeyId: started.passkeyId, options: started.creationOptions };
    },
    async finishPasskeyEnrollment(userId, passkeyId, credential, name, lang) {
      const caller = await selfCaller(userId);
      if (!caller) return { ok: false, problem: 'unknown user' };
      try {
        const { recoveryCodes } = await commands.verifyPasskeyRegistration({ caller }, { userId, passkeyId, credential, passkeyName: name });
        return { ok: true, recoveryCodes };
      } catch (e) {
        return { ok: false, problem: problemText(e, lang) };
      }
    },
    orgOfSignIn,
    async registration(interaction) {
      const orgId = await orgOfSignIn(interaction);
      if (!orgId) return undefined;
      const rules = (await loginFactorsOf(read, orgId)).registration;
      return rules ? { orgId, ...rules } : undefined;
    },
    async register(input, client, lang) {
      try {
        const { userId } = await commands.registerHumanUser(input, client);
        return { ok: true, userId, username: input.email.trim() };
      } catch (e) {
        return { ok: false, problem: problemText(e, lang) };
      }
    },
    hasTotp: (userId) => hasReadyTotp(read, userId),
    useTotp: (input) => checkTotp({ commands, budgets }, input),
    async startTotpEnrolment(userId, again) {
      const caller = (await selfCaller(userId))!;
      const pending = again ? await commands.pendingTotp({ caller }, { userId }) : undefined;
      if (pending) return pending;
      const { uri, secret } = await commands.registerTotp({ caller }, { userId });
      return { uri, secret };
    },
    async pendingTotpEnrolment(userId) {
      const caller = await selfCaller(userId);
      return caller ? (await commands.pendingTotp({ caller }, { userId })) ?? undefined : undefined;
    },
    async finishTotpEnrolment(userId, code, lang) {
      const caller = await selfCaller(userId);
      if (!caller) return { ok: false, problem: 'unknown user' };
      try {
        const { recoveryCodes } = await commands.verifyTotpRegistration({ caller }, { userId, code });
        return { ok: true, recoveryCodes };
      } catch (e) {
        return { ok: false, problem: problemText(e, lang), reason: e instanceof KeyholdError ? e.reason : undefined };
      }
    },
  };
}
