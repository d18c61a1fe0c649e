// "Confirm your address": the code and a link that carries it. Sent when an
// address is set or changed with sendCode, and again on ResendEmailCode.
import { htmlLink, type MailTemplate } from './render.js';

export type VerifyEmailValues = 'name' | 'code' | 'link' | 'minutes';

export const VERIFY_EMAIL: MailTemplate<VerifyEmailValues> = {
  subject: {
    en: () => 'Confirm your email address',
    de: () => 'Bestätigen Sie Ihre E-Mail-Adresse',
  },
  text: {
    en: (v) => `Hello ${v.name.text},\n\nconfirm this address with the code ${v.code.text} or by opening:\n\n${v.link.text}\n\nThe code works once and for ${v.minutes.text} minutes. If you did not ask for this, ignore this mail.\n`,
    de: (v) => `Hallo ${v.name.text},\n\nbestätigen Sie diese Adresse mit dem Code ${v.code.text} oder über diesen Link:\n\n${v.link.text}\n\nDer Code gilt einmal und ${v.minutes.text} Minuten lang. Wenn Sie das nicht angefordert haben, ignorieren Sie diese Mail.\n`,
  },
  html: {
    en: (v) => `<p>Hello ${v.name.html},</p><p>confirm this address with the code <strong>${v.code.html}</strong> or by opening this link:</p>${htmlLink(v.link, 'Confirm the address')}<p>The code works once and for ${v.minutes.html} minutes. If you did not ask for this, ignore this mail.</p>`,
    de: (v) => `<p>Hallo ${v.name.html},</p><p>bestätigen Sie diese Adresse mit dem Code <strong>${v.code.html}</strong> oder über diesen Link:</p>${htmlLink(v.link, 'Adresse bestätigen')}<p>Der Code gilt einmal und ${v.minutes.html} Minuten lang. Wenn Sie das nicht angefordert haben, ignorieren Sie diese Mail.</p>`,
  },
};
