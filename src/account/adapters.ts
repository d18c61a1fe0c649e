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
import { MailUnavailable, type Mailer } from '../mail/mailer.js';
import { sendVerificationMail } from '../mail/verification.js';
import type { AccountPorts, Done, Factor } from './ports.js';

const ALL = { offset: 0, limit: 100, asc: true } as const;

/** A factor's removal refused because it is already gone. */
const GONE = new Set(['U2F_NOT_FOUND', 'PASSKEY_NOT_FOUND', 'TOTP_NOT_REGISTERED']);

function problemOf(thrown: unknown, lang: Language): Done {
  if (thrown instanceof ConcurrencyConflict) return { ok: false, problem: renderMessage('CONCURRENT_MODIFICATION', lang, {}), conflict: true };
  const reason = (thrown as { reason?: unknown }).reason;
  return { ok: false, problem: refusalText(thrown, lang), ...(reason === 'LAST_SECOND_FACTOR' ? { conflict: true } : {}), ...(GONE.has(reason as string) ? { gone: true } : {}) };
}

export function accountPorts(
  read: Pick<ReadModel, 'user' | 'u2fTokensOf' | 'passkeysPage' | 'totpOf' | 'unusedRecoveryCodesOf' | 'passwordOf' | 'userSessions' | 'idpLinksOf' | 'identityProvider'>,
  commands: Pick<Commands, 'updateHumanUser' | 'removeU2f' | 'removePasskey' | 'removeTotp' | 'removeIdpLink' | 'renameU2f' | 'renamePasskey' | 'generateRecoveryCodes' | 'setEmail' | 'resendEmailCode' | 'useEmailCode' | 'endSession' | 'endOtherSessions'>,
  forceMfa: (orgId: string) => Promise<boolean>,
  mail: { mailer: Mailer; issuer: () => string } = { mailer: { configured: false, send: async () => {} } as unknown as Mailer, issuer: () => '' },
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

  /** Mails a code the command made; a mail server that refuses is said in the user's words (the code stays valid). */
  const mailCode = async (answer: { code?: string; user: Parameters<typeof sendVerificationMail>[3] }, lang: Language): Promise<Done> => {
    if (!answer.code) return { ok: true };
    try {
      await sendVerificationMail(mail.mailer, mail.issuer(), lang, answer.user, answer.code);
      return { ok: true };
    } catch (e) {
      if (e instanceof MailUnavailable) return { ok: false, problem: renderMessage('EMAIL_MAIL_UNAVAILABLE', lang, {}) };
      throw e;
    }
  };

  return {
    sessions: (userId) => read.userSessions(userId),
    async endSession(userId, sessionId, lang) {
      const caller = await selfCaller(userId);
      return attempt(lang, () => commands.endSession({ caller }, { userId, sessionId }));
    },
    async endOtherSessions(userId, currentSessionId, lang) {
      const caller = await selfCaller(userId);
      return attempt(lang, () => commands.endOtherSessions({ caller }, { userId, currentSessionId }));
    },
    mailConfigured: () => mail.mailer.configured,
    async changeAddress(userId, email, lang) {
      const caller = await selfCaller(userId);
      let answer;
      try {
        answer = await commands.setEmail({ caller }, { userId, email, verification: mail.mailer.configured ? { kind: 'send' } : undefined });
      } catch (e) {
        if (e instanceof ConcurrencyConflict || (e as { reason?: unknown })?.reason) return problemOf(e, lang);
        throw e;
      }
      return mailCode(answer, lang);
    },
    async sendAddressCode(userId, lang) {
      const caller = await selfCaller(userId);
      let answer;
      try {
        answer = await commands.resendEmailCode({ caller }, { userId, verification: { kind: 'send' } });
      } catch (e) {
        if (e instanceof ConcurrencyConflict || (e as { reason?: unknown })?.reason) return problemOf(e, lang);
        throw e;
      }
      return mailCode(answer, lang);
    },
    async confirmAddress(userId, code, client, lang) {
      const used = await commands.useEmailCode({ userId, code, actor: userId }, client);
      return used.ok ? { ok: true } : { ok: false, problem: renderMessage(used.reason, lang, used.retryAfterSeconds ? { seconds: String(used.retryAfterSeconds) } : {}) };
    },
    async view(userId) {
      const user = await read.user(userId);
      if (!user || user.kind !== 'human' || !userIsLive(user)) return undefined;
      const [keys, passkeys, totp, codesLeft, password, mfaRequired, linked] = await Promise.all([
        read.u2fTokensOf(userId),
        read.passkeysPage(userId, ALL),
        read.totpOf(userId),
        read.unusedRecoveryCodesOf(userId),
        read.passwordOf(userId),
        forceMfa(user.orgId),
        read.idpLinksOf(userId),
      ]);
      const links = await Promise.all(linked.map(async (l) => ({ idpId: l.idpId, subject: l.subject, name: (await read.identityProvider(l.idpId))?.settings.name ?? l.idpId })));
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
        emailVerified: Boolean(user.emailVerified),
        mailConfigured: mail.mailer.configured,
        hasPassword: Boolean(password?.passwordHash),
        factors,
        codesLeft,
        mfaRequired,
        links,
      };
    },
    async updateProfile(userId, profile, lang) {
      const caller = await selfCaller(userId);
      return attempt(lang, () => commands.updateHumanUser({ caller }, { userId, profile }));
    },
    async removeFactor(userId, factor, lang) {
      const caller = await selfCaller(userId);
      // Under the org's second-factor rule the command keeps one (commands/users/remove-factor.ts); a factor
      // another request removed a moment ago is gone, as asked.
      const done = await attempt(lang, () => REMOVE[factor.kind](caller, userId, factor.id));
      return !done.ok && done.gone ? { ok: true } : done;
    },
    async removeLink(userId, link, lang) {
      const caller = await selfCaller(userId);
      return attempt(lang, () => commands.removeIdpLink({ caller }, { userId, idpId: link.idpId, subject: link.subject }));
    },
    async renameFactor(userId, factor, name, lang) {
      const caller = await selfCaller(userId);
      if (factor.kind === 'key') return attempt(lang, () => commands.renameU2f({ caller }, { userId, u2fId: factor.id, tokenName: name }));
      if (factor.kind === 'passkey') return attempt(lang, () => commands.renamePasskey({ caller }, { userId, passkeyId: factor.id, passkeyName: name }));
      return { ok: false, problem: '' };
    },
    async regenerateCodes(userId, lang) {
      const caller = await selfCaller(userId);
      let codes: string[] = [];
      const done = await attempt(lang, async () => (codes = (await commands.generateRecoveryCodes({ caller }, { userId })).codes));
      return done.ok ? { ok: true, codes } : done;
    },
  };
}
