// CreateInviteCode, ResendInviteCode, VerifyInviteCode (user v2): the command
// makes the code; here it is mailed (the link from KEYHOLD_ISSUER) or answered
// to the caller. Mail is checked to be configured before anything is written.
import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import type { CreatedInvite } from '../../commands/users/invite-code.js';
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { inviteLink } from '../../domain/invite/link.js';
import { MailUnavailable, type Mailer } from '../../mail/mailer.js';
import { render } from '../../mail/templates/render.js';
import { INVITE, INVITE_KEY } from '../../mail/templates/invite.js';
import { callOf, languageOf, type ApiDeps } from '../context.js';
import { writeDetails } from '../details.js';
import { greetingName } from '../../domain/user/display-name.js';

type Impl = ServiceImpl<typeof UserService>;

export function inviteHandlers({ commands, mail }: ApiDeps): Pick<Impl, 'createInviteCode' | 'resendInviteCode' | 'verifyInviteCode'> {
  const mailerOf = (): Mailer => {
    if (!mail?.mailer.configured) throw new KeyholdError('INVITE_MAIL_NOT_CONFIGURED');
    return mail.mailer;
  };
  async function mailInvite(created: CreatedInvite, lang: ReturnType<typeof languageOf>, appName: string, mailer: Mailer): Promise<void> {
    const { user } = created;
    const message = render(created.purpose === 'key' ? INVITE_KEY : INVITE, lang, user.email ?? '', {
      name: greetingName(user),
      app: appName,
      link: inviteLink(mail!.issuer(), user.id, created.code),
      expires: created.expiresAt.toISOString().slice(0, 16).replace('T', ' '),
    });
    try {
      await mailer.send(message);
    } catch (e) {
      if (e instanceof MailUnavailable) throw new KeyholdError('INVITE_MAIL_UNAVAILABLE', { userId: user.id });
      throw e;
    }
  }

  return {
    async createInviteCode(req, ctx) {
      const call = callOf(ctx);
      if (req.verification.case === 'returnCode') {
        const created = await commands.createInviteCode(call, { userId: req.userId, delivery: 'returned' });
        return { details: writeDetails(created.written, false), inviteCode: created.code, inviteUrl: inviteLink(mail?.issuer() ?? '', created.user.id, created.code) };
      }
      const send = req.verification.case === 'sendCode' ? req.verification.value : undefined;
      if (send?.urlTemplate) {
        throw invalidRequest([violation('sendCode.urlTemplate', { en: 'is not supported: every link Keyhold sends is built from its issuer', de: 'wird nicht unterstützt: Jeder Link, den Keyhold sendet, wird aus seinem Issuer gebaut' })]);
      }
      const appName = (send?.applicationName ?? '').trim().slice(0, 200) || 'Keyhold';
      const created = await commands.createInviteCode(call, { userId: req.userId, delivery: 'mail', ready: mailerOf });
      await mailInvite(created, languageOf(ctx), appName, mailerOf());
      return { details: writeDetails(created.written, false) };
    },

    async resendInviteCode(req, ctx) {
      const created = await commands.createInviteCode(callOf(ctx), { userId: req.userId, delivery: 'mail', resend: true, ready: mailerOf });
      await mailInvite(created, languageOf(ctx), 'Keyhold', mailerOf());
      return { details: writeDetails(created.written, false) };
    },

    async verifyInviteCode(req, ctx) {
      const { written } = await commands.verifyInviteCode(callOf(ctx), { userId: req.userId, verificationCode: req.verificationCode });
      return { details: writeDetails(written, false) };
    },
  };
}
