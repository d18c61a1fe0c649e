// The account page's adapters (ports.ts AccountPorts) over Keyhold: plain
// adapters with no rule of their own. Every write is the user's own call of
// the command the API runs (self needs no permission), so containment,
// validation and events are the API's.
import type { Caller, Commands } from '../commands/index.js';
import { ConcurrencyConflict } from '../commands/ports.js';
import { refusalText } from '../domain/errors/refusal-text.js';
import { renderMessage } from '../domain/errors/reasons.js';
import type { Language } from '../domain/i18n/language.js';
import { userIsLive, type ReadModel } from '../queries/read-model.js';
import type { AccountPorts, Done, Factor } from './ports.js';

const ALL = { offset: 0, limit: 100, asc: true } as const;

function problemOf(thrown: unknown, lang: Language): Done {
  if (thrown instanceof ConcurrencyConflict) return { ok: false, problem: renderMessage('CONCURRENT_MODIFICATION', lang, {}) };
  return { ok: false, problem: refusalText(thrown, lang) };
}

export function accountPorts(
  read: Pick<ReadModel, 'user' | 'u2fTokensOf' | 'passkeysPage' | 'totpOf' | 'unusedRecoveryCodesOf' | 'passwordOf'>,
  commands: Pick<Commands, 'updateHumanUser' | 'removeU2f' | 'removePasskey' | 'removeTotp' | 'renameU2f' | 'renamePasskey' | 'generateRecoveryCodes'>,
  forceMfa: (orgId: string) => Promise<boolean>,
): AccountPorts {
  const selfCaller = async (userId: string): Promise<Caller> => {
    const user = await read.user(userId);
    return { userId, orgId: user?.orgId ?? '', tokenId: 'account', memberships: [] };
  };
  const attempt = async (lang: Language, write: () => Promise<unknown>): Promise<Done> => {
    try {
      await write();
      return { ok: true };
    } catch (e) {
      // A refusal in the user's language; anything else (the database unavailable) goes on to the page's 503.
      if (e instanceof ConcurrencyConflict || (e as { reason?: unknown })?.reason) return problemOf(e, lang);
      throw e;
    }
  };
  const REMOVE: Record<Factor['kind'], (caller: Caller, userId: string, id: string) => Promise<unknown>> = {
    key: (caller, userId, u2fId) => commands.removeU2f({ caller }, { userId, u2fId }),
    passkey: (caller, userId, passkeyId) => commands.removePasskey({ caller }, { userId, passkeyId }),
    totp: (caller, userId) => commands.removeTotp({ caller }, { userId }),
  };

  return {
    async view(userId) {
      const user = await read.user(userId);
      if (!user || user.kind !== 'human' || !userIsLive(user)) return undefined;
      const [keys, passkeys, totp, codesLeft, password, mfaRequired] = await Promise.all([
        read.u2fTokensOf(userId),
        read.passkeysPage(userId, ALL),
        read.totpOf(userId),
        read.unusedRecoveryCodesOf(userId),
        read.passwordOf(userId),
        forceMfa(user.orgId),
      ]);
      const factors: Factor[] = [
        ...keys.filter((k) => k.state === 'ready').map((k): Factor => ({ kind: 'key', id: k.id, name: k.name, createdAt: k.createdAt })),
        ...passkeys.items.filter((k) => k.state === 'ready').map((k): Factor => ({ kind: 'passkey', id: k.id, name: k.name, createdAt: k.createdAt })),
        ...(totp?.state === 'ready' ? [{ kind: 'totp', id: 'totp', name: null } as Factor] : []),
      ];
      return {
        id: user.id,
        username: user.username,
        givenName: user.givenName ?? '',
        familyName: user.familyName ?? '',
        displayName: user.displayName ?? '',
        email: user.email,
        // No address is verified yet: the ID token's email_verified is false for every address (src/server/oidc/account.ts).
        emailVerified: false,
        hasPassword: Boolean(password?.passwordHash),
        factors,
        codesLeft,
        mfaRequired,
      };
    },
    async updateProfile(userId, profile, lang) {
      const caller = await selfCaller(userId);
      return attempt(lang, () => commands.updateHumanUser({ caller }, { userId, profile }));
    },
    async removeFactor(userId, factor, lang) {
      const caller = await selfCaller(userId);
      return attempt(lang, () => REMOVE[factor.kind](caller, userId, factor.id));
    },
    async renameFactor(userId, factor, name, lang) {
      const caller = await selfCaller(userId);
      if (factor.kind === 'key') return attempt(lang, () => commands.renameU2f({ caller }, { userId, u2fId: factor.id, tokenName: name }));
      if (factor.kind === 'passkey') return attempt(lang, () => commands.renamePasskey({ caller }, { userId, passkeyId: factor.id, passkeyName: name }));
      return { ok: false, problem: '' };
    },
    async regenerateCodes(userId) {
      const caller = await selfCaller(userId);
      return (await commands.generateRecoveryCodes({ caller }, { userId })).codes;
    },
  };
}
