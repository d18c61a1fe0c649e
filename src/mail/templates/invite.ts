// The invitation mail: who invites to what, the link (built from
// KEYHOLD_ISSUER by domain/invite/link.ts), and how long it works. English and
// German, text and HTML. Nothing in it but the one link lets anyone in, and
// the link works once.
import type { Language } from '../../domain/i18n/language.js';
import type { OutgoingMail } from '../mailer.js';

export interface InviteMailInput {
  to: string;
  /** The invited person's name as the administrator wrote it. */
  name: string;
  /** The app the person is invited to (the request's applicationName), or Keyhold. */
  appName: string;
  link: string;
  purpose: 'credential' | 'key';
  expiresAt: Date;
}

const TEXTS = {
  en: {
    subject: { credential: 'Your invitation to {app}', key: 'Add your security key to {app}' },
    greeting: 'Hello {name},',
    body: {
      credential: 'you have been invited to {app}. Open the link below to choose a password or register a passkey; then you can sign in.',
      key: 'your administrator asks you to add a security key to your account at {app}. Open the link below in your own browser, with your key at hand; you will be asked for your password.',
    },
    expiry: 'The link works once, until {date} (UTC).',
    ignore: 'If you did not expect this mail, ignore it: nothing happens without the link.',
    button: { credential: 'Set up your account', key: 'Add your security key' },
  },
  de: {
    subject: { credential: 'Ihre Einladung zu {app}', key: 'Fügen Sie Ihren Sicherheitsschlüssel zu {app} hinzu' },
    greeting: 'Hallo {name},',
    body: {
      credential: 'Sie wurden zu {app} eingeladen. Öffnen Sie den Link unten, um ein Passwort zu wählen oder einen Passkey zu registrieren; danach können Sie sich anmelden.',
      key: 'Ihr Administrator bittet Sie, Ihrem Konto bei {app} einen Sicherheitsschlüssel hinzuzufügen. Öffnen Sie den Link unten in Ihrem eigenen Browser und halten Sie den Schlüssel bereit; Sie werden nach Ihrem Passwort gefragt.',
    },
    expiry: 'Der Link funktioniert einmal, bis {date} (UTC).',
    ignore: 'Falls Sie diese Mail nicht erwartet haben, ignorieren Sie sie: Ohne den Link geschieht nichts.',
    button: { credential: 'Konto einrichten', key: 'Sicherheitsschlüssel hinzufügen' },
  },
} as const;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function inviteMail(lang: Language, input: InviteMailInput): OutgoingMail {
  const t = TEXTS[lang === 'de' ? 'de' : 'en'];
  const date = input.expiresAt.toISOString().slice(0, 16).replace('T', ' ');
  const fill = (text: string) => text.replaceAll('{app}', input.appName).replaceAll('{name}', input.name).replaceAll('{date}', date);
  const lines = [fill(t.greeting), '', fill(t.body[input.purpose]), '', input.link, '', fill(t.expiry), fill(t.ignore)];
  const html = [
    `<p>${escapeHtml(fill(t.greeting))}</p>`,
    `<p>${escapeHtml(fill(t.body[input.purpose]))}</p>`,
    `<p><a href="${escapeHtml(input.link)}">${escapeHtml(t.button[input.purpose])}</a></p>`,
    `<p>${escapeHtml(input.link)}</p>`,
    `<p>${escapeHtml(fill(t.expiry))}<br>${escapeHtml(fill(t.ignore))}</p>`,
  ].join('\n');
  return { to: input.to, subject: fill(t.subject[input.purpose]), text: lines.join('\n'), html };
}
