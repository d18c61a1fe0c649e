// One mail kind = one template file: its subject, text and HTML in every
// language Keyhold speaks (a missing translation is a type error). render()
// picks the recipient's language and escapes every value for the HTML part,
// so a display name like `<a href=…>` arrives as text. Links are passed in,
// already built from KEYHOLD_ISSUER by the flow: a template never sees a request.
import type { Language } from '../../domain/i18n/language.js';
import type { OutgoingMail } from '../mailer.js';

/** A value placed in a template: `html` is the HTML-escaped form. */
export interface Escaped {
  text: string;
  html: string;
}

export type Values<K extends string> = Readonly<Record<K, Escaped>>;

export interface MailTemplate<K extends string> {
  subject: Readonly<Record<Language, (v: Values<K>) => string>>;
  text: Readonly<Record<Language, (v: Values<K>) => string>>;
  /** The body inside the common frame (see frame below). */
  html: Readonly<Record<Language, (v: Values<K>) => string>>;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The rendered message for `to` in `lang`. */
export function render<K extends string>(template: MailTemplate<K>, lang: Language, to: string, values: Readonly<Record<K, string>>): OutgoingMail {
  const escaped = Object.fromEntries(Object.entries<string>(values).map(([k, v]) => [k, { text: v, html: escapeHtml(v) }])) as unknown as Values<K>;
  // A subject is one header line: no line breaks from a value.
  const subject = template.subject[lang](escaped).replace(/[\r\n]+/g, ' ');
  return { to, subject, text: template.text[lang](escaped), html: frame(lang, subject, template.html[lang](escaped)) };
}

function frame(lang: Language, title: string, body: string): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:36rem">${body}</body></html>`;
}

/** A link as a button-like anchor with the URL also written out (some clients strip links). */
export function htmlLink(url: Escaped, label: string): string {
  return `<p><a href="${url.html}">${label}</a></p><p style="font-size:smaller;word-break:break-all">${url.html}</p>`;
}
