// The mail a self-registered user waits for: where the org requires a verified
// address before the first sign-in, the code is mailed when the account is
// made, and again when the person signs in before using it (they have just
// proved the account is theirs). A new code replaces the earlier one, so the
// newest mail is the one that works; the email decider's limit (3 mails in 15
// minutes per user, domain/user/email-verification.ts) bounds how often a
// person who knows the password can have Keyhold mail the address.
import type { Caller } from '../access/caller.js';
import type { Commands } from '../commands/index.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import type { Language } from '../domain/i18n/language.js';
import { MailUnavailable, type Mailer } from '../mail/mailer.js';
import { sendVerificationMail } from '../mail/verification.js';
import type { ReadModel } from '../queries/read-model.js';
import type { LoginPorts } from './ports.js';

export interface AddressCodeDeps {
  mailer: Mailer;
  issuer: () => string;
  read: Pick<ReadModel, 'user'>;
  commands: Pick<Commands, 'resendEmailCode'>;
  /** A mail server that refused (never the code). */
  failed: (err: unknown) => void;
}

export function addressCodePorts(deps: AddressCodeDeps): Pick<LoginPorts, 'mailAddressCode'> {
  return {
    async mailAddressCode(userId: string, lang: Language) {
      if (!deps.mailer.configured) return 'off';
      const user = await deps.read.user(userId);
      if (!user) return 'off';
      // The user asking for its own code, as ResendEmailCode over the API would (self needs no permission).
      const caller: Caller = { userId, orgId: user.orgId, tokenId: 'login', memberships: [] };
      try {
        const answer = await deps.commands.resendEmailCode({ caller }, { userId, verification: { kind: 'send' } });
        await sendVerificationMail(deps.mailer, deps.issuer(), lang, answer.user, answer.code!);
        return 'mailed';
      } catch (e) {
        if (e instanceof KeyholdError && e.reason === 'EMAIL_CODE_MAIL_LIMIT') return 'wait';
        if (e instanceof MailUnavailable || e instanceof KeyholdError) {
          deps.failed(e);
          return 'off';
        }
        throw e;
      }
    },
  };
}
