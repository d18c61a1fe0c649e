// What the invitation page (invite-routes.ts) needs, and its adapter over the
// commands and the login's own ports (the enrolments run as the user, as at a
// forced enrolment). No rule of its own: the code's rules are the invitation
// commands' (src/commands/users/invite-code.ts).
import type { Commands } from '../commands/index.js';
import type { InvitePurpose } from '../domain/invite/decider.js';
import { renderMessage } from '../domain/errors/reasons.js';
import { refusalText } from '../domain/errors/refusal-text.js';
import type { Language } from '../domain/i18n/language.js';
import { LOGIN_TEXTS } from '../domain/i18n/login.js';
import { localize } from '../domain/i18n/text.js';
import type { LoginPorts } from './ports.js';

/** A form's answer: done, or why not (`again`: the invitation still works, the page is shown again). */
export type InviteAnswer = { ok: true } | { ok: false; problem: string; again: boolean; retryAfterSeconds?: number };

export type InviteCheck =
  | { ok: true; purpose: InvitePurpose; username: string; name: string; offers: { password: boolean; passkey: boolean } }
  | { ok: false; problem: string; retryAfterSeconds?: number };

export interface InvitePagePorts {
  check(userId: string, code: string, address: string, lang: Language): Promise<InviteCheck>;
  acceptPassword(userId: string, code: string, password: string, address: string, lang: Language): Promise<InviteAnswer>;
  startPasskey(userId: string): Promise<{ id: string; options: unknown }>;
  finishPasskey(userId: string, code: string, id: string, credential: unknown, address: string, lang: Language): Promise<InviteAnswer>;
  startKey(userId: string): Promise<{ id: string; options: unknown }>;
  finishKey(userId: string, code: string, password: string, id: string, credential: unknown, address: string, lang: Language): Promise<InviteAnswer>;
}

const text = (lang: Language, code: keyof typeof LOGIN_TEXTS, params: Record<string, unknown> = {}) => localize(LOGIN_TEXTS[code], lang, params);

export function invitePagePorts(
  commands: Pick<Commands, 'checkInviteCode' | 'useInviteCode' | 'acceptInvitePassword'>,
  read: { user(userId: string): Promise<{ username: string; displayName?: string | null; givenName?: string | null } | undefined> },
  login: Pick<LoginPorts, 'startPasskeyEnrollment' | 'finishPasskeyEnrollment' | 'startEnrollment' | 'finishEnrollment' | 'verifyPassword' | 'webauthn' | 'userLoginFactors'>,
): InvitePagePorts {
  const refusal = (reason: Parameters<typeof renderMessage>[0], lang: Language, retryAfterSeconds?: number) => ({
    ok: false as const,
    problem: renderMessage(reason, lang, retryAfterSeconds ? { seconds: String(retryAfterSeconds) } : {}),
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  });
  const rpId = () => login.webauthn().rpIds[0]!;
  /** The code spent for an enrolment (after the browser answered): of concurrent answers one goes on. */
  const spend = async (userId: string, code: string, purpose: InvitePurpose, address: string, lang: Language): Promise<InviteAnswer | undefined> => {
    const used = await commands.useInviteCode({ userId, code, purpose, actor: userId }, { address });
    return used.ok ? undefined : { ...refusal(used.reason, lang, used.retryAfterSeconds), again: false };
  };

  return {
    async check(userId, code, address, lang) {
      const checked = await commands.checkInviteCode({ userId, code }, { address });
      if (!checked.ok) return refusal(checked.reason, lang, checked.retryAfterSeconds);
      const user = await read.user(userId);
      if (!user) return refusal('INVITE_CODE_WRONG', lang);
      // Only what the user's org lets sign in (its login policy's first factors).
      const factors = await login.userLoginFactors(userId);
      const offers = { password: factors?.passwordAllowed ?? true, passkey: factors?.passkeyAllowed ?? true };
      return { ok: true, purpose: checked.purpose, username: user.username, name: user.displayName || user.givenName || user.username, offers };
    },
    async acceptPassword(userId, code, password, address, lang) {
      try {
        const used = await commands.acceptInvitePassword({ userId, code, password }, { address });
        return used.ok ? { ok: true } : { ...refusal(used.reason, lang, used.retryAfterSeconds), again: false };
      } catch (e) {
        // A rule of the password (too short, common, the username): named, nothing spent.
        const problem = refusalText(e, lang);
        return { ok: false, problem, again: true };
      }
    },
    async startPasskey(userId) {
      const started = await login.startPasskeyEnrollment(userId, rpId());
      return { id: started.passkeyId, options: started.options };
    },
    async finishPasskey(userId, code, id, credential, address, lang) {
      const refused = await spend(userId, code, 'credential', address, lang);
      if (refused) return refused;
      const done = await login.finishPasskeyEnrollment(userId, id, credential, text(lang, 'invitePasskeyName'), lang);
      return done.ok ? { ok: true } : { ok: false, problem: text(lang, 'inviteSpent', { problem: done.problem }), again: false };
    },
    async startKey(userId) {
      const started = await login.startEnrollment(userId, rpId());
      return { id: started.u2fId, options: started.options };
    },
    async finishKey(userId, code, password, id, credential, address, lang) {
      // The code first: without a code that works, the password is not even tried (no way to probe it here).
      const checked = await commands.checkInviteCode({ userId, code }, { address });
      if (!checked.ok || checked.purpose !== 'key') return { ...refusal(checked.ok ? 'INVITE_CODE_WRONG' : checked.reason, lang, checked.ok ? undefined : checked.retryAfterSeconds), again: false };
      const user = await read.user(userId);
      if (!user) return { ...refusal('INVITE_CODE_WRONG', lang), again: false };
      // The user's own password: whoever holds only the link (the administrator who asked for it) enrols no key.
      const verdict = await login.verifyPassword({ userId, loginName: user.username, password, client: { address }, clientId: 'invite' });
      if (!verdict.ok) {
        const problem = verdict.retryAfterSeconds ? text(lang, 'slowDown', { seconds: verdict.retryAfterSeconds }) : text(lang, verdict.reason === 'wrong' ? 'inviteWrongPassword' : 'locked');
        return { ok: false, problem, again: verdict.reason === 'wrong' };
      }
      const refused = await spend(userId, code, 'key', address, lang);
      if (refused) return refused;
      const done = await login.finishEnrollment(userId, id, credential, text(lang, 'inviteKeyName'), lang);
      return done.ok ? { ok: true } : { ok: false, problem: text(lang, 'inviteSpent', { problem: done.problem }), again: false };
    },
  };
}
