// The login's forgotten-password adapters (ports.ts): asking for a link, and
// setting a new password with it.
//
// Asking answers at once, the same for every name: the lookup, the code and
// the mail run after the answer, so neither the page nor its timing tells
// whether the name has an account (a mail server's latency would). A link is
// sent only to an active human user's address, at most RESET_PER_WINDOW per
// RESET_WINDOW_SECONDS, built from the issuer (never a request header); its
// code is 32 random bytes, only its SHA-256 stored, used once (store/email-codes.ts)
// and only while the address it went to is still the user's. A new request
// retires no earlier link: anyone can ask for a name, and must not be able to
// keep its owner's link dead that way. Using any one link spends the others.
//
// Setting the password checks the rules before using the code (a refused
// password leaves the link working), then uses it in one conditional update
// and appends the new password with the end of every session. Nobody is
// signed in by it: the person signs in as usual, second factor included.
import { randomBytes } from 'node:crypto';
import type { Commands } from '../commands/index.js';
import type { EmailCodeOwner, EmailCodes } from '../commands/ports.js';
import { invalidRequest } from '../domain/errors/keyhold-error.js';
import { refusalText } from '../domain/errors/refusal-text.js';
import { RESET_PER_WINDOW, RESET_TTL_SECONDS, RESET_WINDOW_SECONDS, resetCodeHash as codeHash, resetLink } from '../domain/user/reset-link.js';
import type { Language } from '../domain/i18n/language.js';
import type { Mailer } from '../mail/mailer.js';
import { PASSWORD_RESET } from '../mail/templates/password-reset.js';
import { render } from '../mail/templates/render.js';
import type { ReadModel } from '../queries/read-model.js';
import { userIsLive } from '../queries/read-model.js';
import type { LoginPorts } from './ports.js';


export interface PasswordResetDeps {
  codes: EmailCodes;
  mailer: Mailer;
  issuer: () => string;
  read: Pick<ReadModel, 'user'>;
  commands: Pick<Commands, 'resetPassword' | 'resetPasswordViolations'>;
  findLoginUser: LoginPorts['findLoginUser'];
  /** A failure of the work after the answer (never the code or the link). */
  failed: (err: unknown) => void;
  /** Whether the administrator who had a code made could still set the user's password now (access.ts mayStillWriteCredential). */
  makerMayStill: (makerId: string, userId: string) => Promise<boolean>;
}

export type PasswordResetPorts = Pick<LoginPorts, 'mailConfigured' | 'requestPasswordReset' | 'resetTarget' | 'resetPassword'>;

export function passwordResetPorts(deps: PasswordResetDeps): PasswordResetPorts {
  /**
   * The code's user while the code is unused and unexpired, the address it went to is still the
   * user's, and — for a code an administrator had made — that administrator could still set the
   * password (a maker demoted or gone, or a user promoted past it, ends the code).
   */
  const owner = async (found: EmailCodeOwner | undefined) => {
    if (!found) return undefined;
    const user = await deps.read.user(found.userId);
    if (!user || user.kind !== 'human' || !userIsLive(user) || user.email !== found.email) return undefined;
    if (found.createdBy && !(await deps.makerMayStill(found.createdBy, found.userId))) return undefined;
    return { ...user, createdBy: found.createdBy };
  };

  async function send(loginName: string, orgId: string | undefined, lang: Language): Promise<void> {
    const found = await deps.findLoginUser(loginName, orgId);
    const user = found ? await deps.read.user(found.id) : undefined;
    if (!user || user.kind !== 'human' || !userIsLive(user) || !user.email) return;
    const code = randomBytes(32).toString('base64url');
    const issued = await deps.codes.issue({
      purpose: 'reset',
      codeHash: codeHash(code),
      userId: user.id,
      email: user.email,
      ttlSeconds: RESET_TTL_SECONDS,
      perWindow: RESET_PER_WINDOW,
      windowSeconds: RESET_WINDOW_SECONDS,
    });
    if (!issued) return;
    const link = resetLink(deps.issuer(), code);
    const name = user.displayName || user.username;
    await deps.mailer.send(render(PASSWORD_RESET, lang, user.email, { name, link, minutes: String(RESET_TTL_SECONDS / 60) }));
  }

  return {
    mailConfigured: () => deps.mailer.configured,
    requestPasswordReset(loginName, orgId, lang) {
      void send(loginName, orgId, lang).catch(deps.failed);
    },
    async resetTarget(code) {
      const user = await owner(await deps.codes.peek('reset', codeHash(code)));
      return user ? { userId: user.id, username: user.username } : undefined;
    },
    async resetPassword(code, newPassword, lang) {
      const hash = codeHash(code);
      const target = await owner(await deps.codes.peek('reset', hash));
      if (!target) return { ok: false, expired: true };
      const violations = await deps.commands.resetPasswordViolations(target.id, newPassword);
      if (violations.length) return { ok: false, problem: refusalText(invalidRequest(violations), lang) };
      // One winner among every request with this code; the others are told the link was used.
      const used = await owner(await deps.codes.use('reset', hash));
      if (!used || used.id !== target.id) return { ok: false, expired: true };
      try {
        // An administrator's link is recorded as that administrator's change (who could have set it).
        await deps.commands.resetPassword({ userId: used.id, password: newPassword, actor: used.createdBy });
      } catch (e) {
        return { ok: false, problem: refusalText(e, lang) };
      }
      return { ok: true };
    },
  };
}
