// What each scope an app asks for lets it do, in words a person can judge:
// the consent page (src/login/steps/consent.ts) and the device sign-in's
// confirmation page (src/server/oidc/device-pages.ts) list them, and warn
// before an app may act as the user on Keyhold's own API.
import type { Texts } from './text.js';

export const SCOPE_TEXTS = {
  intro: { en: '{app} asks to:', de: '{app} möchte:' },
  openid: { en: 'know who you are (your user id)', de: 'wissen, wer du bist (deine Benutzer-ID)' },
  profile: { en: 'read your name, username and language', de: 'deinen Namen, Benutzernamen und deine Sprache lesen' },
  email: { en: 'read your e-mail address and whether it is verified', de: 'deine E-Mail-Adresse lesen und ob sie bestätigt ist' },
  offlineAccess: { en: 'stay signed in (refresh tokens)', de: 'angemeldet bleiben (Refresh-Tokens)' },
  roles: { en: 'read your roles in its project', de: 'deine Rollen in ihrem Projekt lesen' },
  metadata: { en: 'read the metadata your organization keeps about you', de: 'die Metadaten lesen, die deine Organisation über dich führt' },
  org: { en: 'sign you in as a user of the organization {orgId}', de: 'dich als Benutzer der Organisation {orgId} anmelden' },
  api: {
    en: "act as you on Keyhold's management API, with every role you hold",
    de: 'in deinem Namen die Management-API von Keyhold nutzen, mit allen Rollen, die du hast',
  },
  other: { en: 'use the scope {scope}', de: 'den Scope {scope} nutzen' },
  apiWarning: {
    en: "{app} asks to act as you on Keyhold's management API. If you allow it, it can do everything your roles in Keyhold allow — read and change organizations, projects, applications and users, and create tokens. Allow it only if you trust {app} and started this sign-in yourself.",
    de: '{app} möchte in deinem Namen die Management-API von Keyhold nutzen. Wenn du zustimmst, kann die Anwendung alles tun, was deine Rollen in Keyhold erlauben – Organisationen, Projekte, Anwendungen und Benutzer lesen und ändern und Tokens erstellen. Erlaube das nur, wenn du {app} vertraust und diese Anmeldung selbst begonnen hast.',
  },
} as const satisfies Record<string, Texts>;

export type ScopeText = keyof typeof SCOPE_TEXTS;
