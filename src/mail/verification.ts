// The address-verification mail, as the API and the account page send it: the
// code and its link (built from the issuer the composition hands in, never a
// request header), in the asker's language, to the address the code is for.
import type { Language } from '../domain/i18n/language.js';
import { EMAIL_CODE_LIFETIME_MS } from '../domain/user/email-verification.js';
import { verifyEmailLink } from '../domain/user/email-link.js';
import type { Mailer } from './mailer.js';
import { render } from './templates/render.js';
import { VERIFY_EMAIL } from './templates/verify-email.js';
import { greetingName } from '../domain/user/display-name.js';

export interface VerificationRecipient {
  id: string;
  email: string | null;
  username: string;
  displayName?: string | null;
  givenName?: string | null;
  familyName?: string | null;
}

/** Sends `code` for the user's address; a refusal is the mailer's MailUnavailable. */
export async function sendVerificationMail(mailer: Mailer, issuer: string, lang: Language, user: VerificationRecipient, code: string): Promise<void> {
  await mailer.send(
    render(VERIFY_EMAIL, lang, user.email ?? '', {
      name: greetingName(user),
      code,
      link: verifyEmailLink(issuer, user.id, code),
      minutes: String(EMAIL_CODE_LIFETIME_MS / 60_000),
    }),
  );
}
