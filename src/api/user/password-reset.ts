// PasswordReset (user v2): the command issues the link's code; here it is
// mailed (the link from KEYHOLD_ISSUER) or answered to the caller. Mail is
// checked to be configured before anything is issued or written.
import type { ServiceImpl } from '@connectrpc/connect';
import { NotificationType } from '../../../gen/keyhold/user/v2/password_reset_pb.js';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import type { IssuedReset } from '../../commands/users/password-reset.js';
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import type { Language } from '../../domain/i18n/language.js';
import { RESET_TTL_SECONDS, resetLink } from '../../domain/user/reset-link.js';
import { MailUnavailable, type Mailer } from '../../mail/mailer.js';
import { PASSWORD_RESET } from '../../mail/templates/password-reset.js';
import { render } from '../../mail/templates/render.js';
import { callOf, languageOf, type ApiDeps, type MailDeps } from '../context.js';
import { writeDetails } from '../details.js';
import { greetingName } from '../../domain/user/display-name.js';

type Impl = ServiceImpl<typeof UserService>;

/** Mail only: an unspecified type means mail, as in ZITADEL; SMS and numbers Keyhold does not know are refused by name. */
const MAILED: ReadonlySet<number> = new Set([NotificationType.Unspecified, NotificationType.Email]);

async function mailLink(mail: MailDeps, mailer: Mailer, lang: Language, issued: Omit<IssuedReset, 'written'>): Promise<void> {
  const { user } = issued;
  const message = render(PASSWORD_RESET, lang, user.email, {
    name: greetingName(user),
    link: resetLink(mail.issuer(), issued.code),
    minutes: String(RESET_TTL_SECONDS / 60),
  });
  try {
    await mailer.send(message);
  } catch (e) {
    if (e instanceof MailUnavailable) throw new KeyholdError('PASSWORD_RESET_MAIL_UNAVAILABLE', { userId: user.id });
    throw e;
  }
}

export function passwordResetHandlers({ commands, mail }: ApiDeps): Pick<Impl, 'passwordReset'> {
  const mailerOf = (): Mailer => {
    if (!mail?.mailer.configured) throw new KeyholdError('PASSWORD_RESET_MAIL_NOT_CONFIGURED');
    return mail.mailer;
  };
  return {
    async passwordReset(req, ctx) {
      // Every link is built from the issuer: without it (an API composed without mail) nothing is issued.
      if (!mail) throw new Error('PasswordReset needs the issuer the links are built from');
      const call = callOf(ctx);
      if (req.medium.case === 'returnCode') {
        const issued = await commands.requestPasswordReset(call, { userId: req.userId, delivery: 'returned' });
        return { details: writeDetails(issued.written, false), verificationCode: issued.code, resetUrl: resetLink(mail.issuer(), issued.code) };
      }
      const send = req.medium.case === 'sendLink' ? req.medium.value : undefined;
      const problems = [
        ...(send?.urlTemplate ? [violation('sendLink.urlTemplate', { en: 'is not supported: every link Keyhold sends is built from its issuer', de: 'wird nicht unterstützt: Jeder Link, den Keyhold sendet, wird aus seinem Issuer gebaut' })] : []),
        ...(send && !MAILED.has(send.notificationType) ? [violation('sendLink.notificationType', { en: 'must be NOTIFICATION_TYPE_Email: Keyhold sends mail only', de: 'muss NOTIFICATION_TYPE_Email sein: Keyhold sendet nur Mails' })] : []),
      ];
      if (problems.length) throw invalidRequest(problems);
      const lang = languageOf(ctx);
      const issued = await commands.requestPasswordReset(call, { userId: req.userId, delivery: 'mail', ready: mailerOf, deliver: (made) => mailLink(mail, mailerOf(), lang, made) });
      return { details: writeDetails(issued.written, false) };
    },
  };
}
