// SetEmail, ResendEmailCode, VerifyEmail (user v2), and the verification that
// AddHumanUser and UpdateHumanUser start with an address: the command makes
// the code; here it is mailed (the link from KEYHOLD_ISSUER) or answered to
// the caller. Mail is checked to be configured before anything is written.
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import type { Call } from '../../access/caller.js';
import type { EmailAnswer, EmailVerification } from '../../commands/users/email-verification.js';
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { MailUnavailable, type Mailer } from '../../mail/mailer.js';
import { sendVerificationMail } from '../../mail/verification.js';
import { callOf, languageOf, type ApiDeps } from '../context.js';
import { writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof UserService>;

/** A request's verification oneof (SetHumanEmail, SetEmailRequest, ResendEmailCodeRequest), as ZITADEL names its cases. */
type VerificationOneof =
  | { case: 'sendCode'; value: { urlTemplate?: string } }
  | { case: 'returnCode'; value: unknown }
  | { case: 'isVerified'; value: boolean }
  | { case: undefined; value?: undefined };

/** The oneof as the command's choice; a url template is refused (every link is built from the issuer), isVerified false is no choice. */
export function verificationOf(oneof: VerificationOneof | undefined, field: string): EmailVerification {
  switch (oneof?.case) {
    case 'sendCode':
      if (oneof.value.urlTemplate) {
        throw invalidRequest([violation(`${field ? `${field}.` : ''}sendCode.urlTemplate`, { en: 'is not supported: every link Keyhold sends is built from its issuer', de: 'wird nicht unterstützt: Jeder Link, den Keyhold sendet, wird aus seinem Issuer gebaut' })]);
      }
      return { kind: 'send' };
    case 'returnCode':
      return { kind: 'return' };
    case 'isVerified':
      return oneof.value ? { kind: 'verified' } : undefined;
    default:
      return undefined;
  }
}

/** What the user service's address handlers share: the mailer's check, and mailing a code. */
export function emailMail({ mail }: Pick<ApiDeps, 'mail'>) {
  const mailerOf = (): Mailer => {
    if (!mail?.mailer.configured) throw new KeyholdError('EMAIL_MAIL_NOT_CONFIGURED');
    return mail.mailer;
  };
  /** After the command: mails the code when it was to be sent; the answer's code when it was to be returned. */
  async function deliver(answer: EmailAnswer, verification: EmailVerification, ctx: HandlerContext): Promise<string | undefined> {
    if (!answer.code) return undefined;
    if (verification?.kind === 'return') return answer.code;
    const { user } = answer;
    try {
      await sendVerificationMail(mailerOf(), mail!.issuer(), languageOf(ctx), user, answer.code);
    } catch (e) {
      if (e instanceof MailUnavailable) throw new KeyholdError('EMAIL_MAIL_UNAVAILABLE', { userId: user.id });
      throw e;
    }
    return undefined;
  }
  return { mailerOf, deliver };
}

/** An address's verification after AddHumanUser or UpdateHumanUser wrote the address: the code, when one is to be answered. */
export async function startVerification(deps: ApiDeps, call: Call, userId: string, email: string, verification: EmailVerification, ctx: HandlerContext): Promise<string | undefined> {
  if (!verification) return undefined;
  const { deliver } = emailMail(deps);
  const answer = await deps.commands.setEmail(call, { userId, email, verification });
  return deliver(answer, verification, ctx);
}

export function emailHandlers(deps: ApiDeps): Pick<Impl, 'setEmail' | 'resendEmailCode' | 'verifyEmail'> {
  const { commands } = deps;
  const { mailerOf, deliver } = emailMail(deps);
  return {
    async setEmail(req, ctx) {
      const verification = verificationOf(req.verification as VerificationOneof, '');
      const answer = await commands.setEmail(callOf(ctx), { userId: req.userId, email: req.email, verification, ready: mailerOf });
      const code = await deliver(answer, verification, ctx);
      return { details: writeDetails(answer.written, false), ...(code ? { verificationCode: code } : {}) };
    },
    async resendEmailCode(req, ctx) {
      const chosen = verificationOf(req.verification as VerificationOneof, '');
      // ZITADEL sends when neither is named.
      const verification = chosen?.kind === 'return' ? ({ kind: 'return' } as const) : ({ kind: 'send' } as const);
      const answer = await commands.resendEmailCode(callOf(ctx), { userId: req.userId, verification, ready: mailerOf });
      const code = await deliver(answer, verification, ctx);
      return { details: writeDetails(answer.written, false), ...(code ? { verificationCode: code } : {}) };
    },
    async verifyEmail(req, ctx) {
      const { written } = await commands.verifyEmail(callOf(ctx), { userId: req.userId, verificationCode: req.verificationCode });
      return { details: writeDetails(written, false) };
    },
  };
}
