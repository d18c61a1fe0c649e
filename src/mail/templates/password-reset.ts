// "Set a new password": the link to the login's reset step. It does not sign
// anyone in: after the new password the login goes on as usual, second factor
// included, and every other session of the account has ended.
import { htmlLink, type MailTemplate } from './render.js';

export type PasswordResetValues = 'name' | 'link' | 'minutes';

export const PASSWORD_RESET: MailTemplate<PasswordResetValues> = {
  subject: {
    en: () => 'Set a new password',
    de: () => 'Neues Passwort festlegen',
  },
  text: {
    en: (v) => `Hello ${v.name.text},\n\nsomeone asked to set a new password for your account. To do so, open:\n\n${v.link.text}\n\nThe link works once and for ${v.minutes.text} minutes; using it signs out your account everywhere. If you did not ask for this, ignore this mail: your password stays as it is.\n`,
    de: (v) => `Hallo ${v.name.text},\n\njemand möchte ein neues Passwort für Ihr Konto festlegen. Dazu öffnen Sie:\n\n${v.link.text}\n\nDer Link gilt einmal und ${v.minutes.text} Minuten lang; damit werden Sie überall abgemeldet. Wenn Sie das nicht angefordert haben, ignorieren Sie diese Mail: Ihr Passwort bleibt, wie es ist.\n`,
  },
  html: {
    en: (v) => `<p>Hello ${v.name.html},</p><p>someone asked to set a new password for your account.</p>${htmlLink(v.link, 'Set a new password')}<p>The link works once and for ${v.minutes.html} minutes; using it signs out your account everywhere. If you did not ask for this, ignore this mail: your password stays as it is.</p>`,
    de: (v) => `<p>Hallo ${v.name.html},</p><p>jemand möchte ein neues Passwort für Ihr Konto festlegen.</p>${htmlLink(v.link, 'Neues Passwort festlegen')}<p>Der Link gilt einmal und ${v.minutes.html} Minuten lang; damit werden Sie überall abgemeldet. Wenn Sie das nicht angefordert haben, ignorieren Sie diese Mail: Ihr Passwort bleibt, wie es ist.</p>`,
  },
};
