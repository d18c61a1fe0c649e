// The invitation mails: to set up an account (a password or a passkey), and
// to add a security key in one's own browser. The link is built from
// KEYHOLD_ISSUER by the flow (domain/invite/link.ts) and works once; nothing
// else in the mail lets anyone in.
import { htmlLink, type MailTemplate } from './render.js';

export type InviteValues = 'name' | 'app' | 'link' | 'expires';

export const INVITE: MailTemplate<InviteValues> = {
  subject: {
    en: (v) => `Your invitation to ${v.app.text}`,
    de: (v) => `Ihre Einladung zu ${v.app.text}`,
  },
  text: {
    en: (v) =>
      `Hello ${v.name.text},\n\nyou have been invited to ${v.app.text}. Open this link to choose a password or register a passkey; then you can sign in:\n\n${v.link.text}\n\nThe link works once, until ${v.expires.text} (UTC). If you did not expect this mail, ignore it: nothing happens without the link.\n`,
    de: (v) =>
      `Hallo ${v.name.text},\n\nSie wurden zu ${v.app.text} eingeladen. Öffnen Sie diesen Link, um ein Passwort zu wählen oder einen Passkey zu registrieren; danach können Sie sich anmelden:\n\n${v.link.text}\n\nDer Link funktioniert einmal, bis ${v.expires.text} (UTC). Falls Sie diese Mail nicht erwartet haben, ignorieren Sie sie: Ohne den Link geschieht nichts.\n`,
  },
  html: {
    en: (v) =>
      `<p>Hello ${v.name.html},</p><p>you have been invited to ${v.app.html}. Open this link to choose a password or register a passkey; then you can sign in:</p>${htmlLink(v.link, 'Set up your account')}<p>The link works once, until ${v.expires.html} (UTC). If you did not expect this mail, ignore it: nothing happens without the link.</p>`,
    de: (v) =>
      `<p>Hallo ${v.name.html},</p><p>Sie wurden zu ${v.app.html} eingeladen. Öffnen Sie diesen Link, um ein Passwort zu wählen oder einen Passkey zu registrieren; danach können Sie sich anmelden:</p>${htmlLink(v.link, 'Konto einrichten')}<p>Der Link funktioniert einmal, bis ${v.expires.html} (UTC). Falls Sie diese Mail nicht erwartet haben, ignorieren Sie sie: Ohne den Link geschieht nichts.</p>`,
  },
};

export const INVITE_KEY: MailTemplate<InviteValues> = {
  subject: {
    en: (v) => `Add your security key to ${v.app.text}`,
    de: (v) => `Fügen Sie Ihren Sicherheitsschlüssel zu ${v.app.text} hinzu`,
  },
  text: {
    en: (v) =>
      `Hello ${v.name.text},\n\nyour administrator asks you to add a security key to your account at ${v.app.text}. Open this link in your own browser, with your key at hand; you will be asked for your password:\n\n${v.link.text}\n\nThe link works once, until ${v.expires.text} (UTC). If you did not expect this mail, ignore it.\n`,
    de: (v) =>
      `Hallo ${v.name.text},\n\nIhr Administrator bittet Sie, Ihrem Konto bei ${v.app.text} einen Sicherheitsschlüssel hinzuzufügen. Öffnen Sie diesen Link in Ihrem eigenen Browser und halten Sie den Schlüssel bereit; Sie werden nach Ihrem Passwort gefragt:\n\n${v.link.text}\n\nDer Link funktioniert einmal, bis ${v.expires.text} (UTC). Falls Sie diese Mail nicht erwartet haben, ignorieren Sie sie.\n`,
  },
  html: {
    en: (v) =>
      `<p>Hello ${v.name.html},</p><p>your administrator asks you to add a security key to your account at ${v.app.html}. Open this link in your own browser, with your key at hand; you will be asked for your password:</p>${htmlLink(v.link, 'Add your security key')}<p>The link works once, until ${v.expires.html} (UTC). If you did not expect this mail, ignore it.</p>`,
    de: (v) =>
      `<p>Hallo ${v.name.html},</p><p>Ihr Administrator bittet Sie, Ihrem Konto bei ${v.app.html} einen Sicherheitsschlüssel hinzuzufügen. Öffnen Sie diesen Link in Ihrem eigenen Browser und halten Sie den Schlüssel bereit; Sie werden nach Ihrem Passwort gefragt:</p>${htmlLink(v.link, 'Sicherheitsschlüssel hinzufügen')}<p>Der Link funktioniert einmal, bis ${v.expires.html} (UTC). Falls Sie diese Mail nicht erwartet haben, ignorieren Sie sie.</p>`,
  },
};
