// Human-readable sentences for the compliance report, English and German,
// keyed by the compliance key without its 'Application.OIDC.V1.' prefix.
// Where a problem is caused by a redirect URI, the sentence names it, so the
// reader does not have to hunt through the list.

import type { Language } from '../i18n/language.js';
import { localize, type Texts } from '../i18n/text.js';

/** A catalog row (../i18n/text.ts); its parameter is the first offending redirect URI, when the problem is about one. */
type Sentence = Texts<string | undefined>;

// Quote the URI when known, else fall back to a generic phrase.
const en = (uri: string | undefined, generic: string) => (uri ? `"${uri}"` : generic);
const de = (uri: string | undefined, generic: string) => (uri ? `„${uri}“` : generic);

const MESSAGES: Readonly<Record<string, Sentence>> = {
  NotCompliant: {
    en: () => 'This configuration does not follow the OIDC recommendations; see the other entries for what to change.',
    de: () => 'Diese Konfiguration weicht von den OIDC-Empfehlungen ab; die weiteren Einträge sagen, was zu ändern ist.',
  },
  NoRedirectUris: {
    en: () => 'No redirect URI is registered, so a login through the browser has nowhere to return to. Add at least one.',
    de: () => 'Es ist keine Weiterleitungs-URI eingetragen, daher kann eine Anmeldung im Browser nirgends zurückkehren. Bitte mindestens eine hinzufügen.',
  },
  'GrantType.Refresh.NoAuthCode': {
    en: () => 'Refresh tokens are only issued after an authorization-code or device-code login; add one of those grant types.',
    de: () => 'Refresh-Tokens werden nur nach einer Anmeldung per Authorization Code oder Device Code ausgestellt; bitte einen dieser Grant-Typen hinzufügen.',
  },
  'Implicit.RedirectUris.CustomNotAllowed': {
    en: (u) => `The implicit flow cannot return tokens to the custom-scheme redirect URI ${en(u, 'in the list')}; use an https URI.`,
    de: (u) => `Der Implicit Flow kann keine Tokens an die Weiterleitungs-URI mit eigenem Schema ${de(u, 'in der Liste')} liefern; bitte eine https-URI verwenden.`,
  },
  'Implicit.RedirectUris.HttpNotAllowed': {
    en: (u) => `The implicit flow sends tokens in the URL, so the unencrypted redirect URI ${en(u, 'in the list')} is not allowed; use https.`,
    de: (u) => `Der Implicit Flow überträgt Tokens in der URL, daher ist die unverschlüsselte Weiterleitungs-URI ${de(u, 'in der Liste')} nicht erlaubt; bitte https verwenden.`,
  },
  'Code.RedirectUris.HttpOnlyForWeb': {
    en: (u) => `The plain-http redirect URI ${en(u, 'in the list')} is accepted only for web applications; a browser app must use https.`,
    de: (u) => `Die Weiterleitungs-URI über einfaches http ${de(u, 'in der Liste')} ist nur für Webanwendungen zulässig; eine Browser-Anwendung muss https verwenden.`,
  },
  'Code.RedirectUris.CustomOnlyForNative': {
    en: (u) => `The custom-scheme redirect URI ${en(u, 'in the list')} is meant for native apps; change the app type to native or use https.`,
    de: (u) => `Die Weiterleitungs-URI mit eigenem Schema ${de(u, 'in der Liste')} ist für native Apps gedacht; bitte den App-Typ auf nativ ändern oder https verwenden.`,
  },
  'Native.RedirectUris.MustBeHttpLocalhost': {
    en: (u) => `A native app may use plain http only for a loopback address (localhost, 127.0.0.1, [::1]); ${en(u, 'a redirect URI')} is not one.`,
    de: (u) => `Eine native App darf einfaches http nur für eine Loopback-Adresse (localhost, 127.0.0.1, [::1]) verwenden; ${de(u, 'eine Weiterleitungs-URI')} ist keine.`,
  },
  'Native.AuthMethodType.NotNone': {
    en: () => 'A native app runs on the user\'s device and cannot keep a secret; set the authentication method to NONE and use PKCE.',
    de: () => 'Eine native App läuft auf dem Gerät des Nutzers und kann kein Geheimnis bewahren; bitte die Authentifizierungsmethode NONE mit PKCE verwenden.',
  },
  'UserAgent.AuthMethodType.NotNone': {
    en: () => 'A browser app exposes its code to every visitor and cannot keep a secret; set the authentication method to NONE and use PKCE.',
    de: () => 'Eine Browser-Anwendung legt ihren Code jedem Besucher offen und kann kein Geheimnis bewahren; bitte die Authentifizierungsmethode NONE mit PKCE verwenden.',
  },
  NotAllCombinationsAreAllowed: {
    en: (u) => `Note: with both the implicit and the code flow, the non-https redirect URI ${en(u, 'in the list')} will work only with some response types. The app is still compliant.`,
    de: (u) => `Hinweis: Mit Implicit und Code Flow zugleich funktioniert die Weiterleitungs-URI ohne https ${de(u, 'in der Liste')} nur mit einigen Antworttypen. Die App bleibt konform.`,
  },
};

const UNKNOWN: Sentence = {
  en: () => 'This configuration has a compliance problem.',
  de: () => 'Diese Konfiguration hat ein Konformitätsproblem.',
};

/** The sentence for one compliance key (without prefix) in `lang`. */
export function complianceMessage(shortKey: string, lang: Language, uri?: string): string {
  return localize(Object.hasOwn(MESSAGES, shortKey) ? MESSAGES[shortKey]! : UNKNOWN, lang, uri);
}

/** Keys that have their own sentence (tests check every rule key is among them). */
export const COMPLIANCE_MESSAGE_KEYS: readonly string[] = Object.keys(MESSAGES);
