// Field violations of an AddOIDCApp request and their human-readable sentences.
// The `code` is the stable contract (tests and clients match on it); the
// sentences are for people and may be reworded at any time. A catalog of
// Texts (../i18n/text.ts), as every user-facing text is.

import { FieldViolation } from '../errors/keyhold-error.js';
import type { Language } from '../i18n/language.js';
import type { Texts } from '../i18n/text.js';
import { characterKindText, type CharacterKind } from '../identity/identifiers.js';

type Params = Readonly<Record<string, string | number>>;
type Sentence = Texts<Params & { field: string }>;

/** A violation the OIDC validator found: always with a code. */
export type CodedViolation = FieldViolation & { readonly code: string };

const kindText = (p: Params, lang: Language): string => characterKindText(String(p.kind) as CharacterKind, lang);

// One row per code, one column per language. Keeping both languages side by
// side makes a missing translation visible in review (and a type error).
const CATALOG: Readonly<Record<string, Sentence>> = {
  NAME_EMPTY: {
    en: () => 'The application needs a name; an empty or blank name is not accepted.',
    de: () => 'Die Anwendung braucht einen Namen; ein leerer Name oder einer nur aus Leerzeichen wird nicht angenommen.',
  },
  NAME_TOO_LONG: {
    en: (p) => `The application name may have at most ${p.max} characters, but it has ${p.length}.`,
    de: (p) => `Der Anwendungsname darf höchstens ${p.max} Zeichen lang sein, hat aber ${p.length}.`,
  },
  NAME_INVALID_CHARACTER: {
    en: (p) => `The application name contains ${p.codePoint ?? 'a character'} (${kindText(p, 'en')}), which a name cannot hold.`,
    de: (p) => `Der Anwendungsname enthält ${p.codePoint ?? 'ein Zeichen'} (${kindText(p, 'de')}), das ein Name nicht enthalten darf.`,
  },
  NAME_NOTHING_VISIBLE: {
    en: () => 'The application name shows nothing: it needs at least one visible character.',
    de: () => 'Der Anwendungsname zeigt nichts an: Er braucht mindestens ein sichtbares Zeichen.',
  },
  NAME_NORMALIZED_TOO_LONG: {
    en: () => 'The application name is too long once normalized (compatibility forms such as ligatures expand).',
    de: () => 'Der Anwendungsname ist nach der Normalisierung zu lang (Kompatibilitätsformen wie Ligaturen werden länger).',
  },
  LIST_TOO_LONG: {
    en: (p) => `${p.field} may hold at most ${p.max} entries, but ${p.count} were sent.`,
    de: (p) => `${p.field} darf höchstens ${p.max} Einträge enthalten, gesendet wurden ${p.count}.`,
  },
  URI_EMPTY: {
    en: (p) => `${p.field} is empty; every entry must be a complete URI.`,
    de: (p) => `${p.field} ist leer; jeder Eintrag muss eine vollständige URI sein.`,
  },
  URI_TOO_LONG: {
    en: (p) => `${p.field} is longer than the allowed ${p.max} characters.`,
    de: (p) => `${p.field} ist länger als die erlaubten ${p.max} Zeichen.`,
  },
  URI_INVALID_CHARACTER: {
    en: (p) => `${p.field} contains whitespace or control characters; encode them or remove them.`,
    de: (p) => `${p.field} enthält Leer- oder Steuerzeichen; bitte kodieren oder entfernen.`,
  },
  URI_NOT_ABSOLUTE: {
    en: (p) => `${p.field} must be an absolute URI that starts with a scheme, for example https://app.example/callback.`,
    de: (p) => `${p.field} muss eine absolute URI mit Schema sein, zum Beispiel https://app.example/callback.`,
  },
  URI_MALFORMED: {
    en: (p) => `${p.field} is not a well-formed URI.`,
    de: (p) => `${p.field} ist keine gültig aufgebaute URI.`,
  },
  BACK_CHANNEL_LOGOUT_URI_NOT_ALLOWED: {
    en: (p) => `${p.field} must use https (http only to localhost and only in dev mode); a localhost address needs dev mode.`,
    de: (p) => `${p.field} muss https verwenden (http nur zu localhost und nur im Entwicklungsmodus); eine localhost-Adresse braucht den Entwicklungsmodus.`,
  },
  URI_HAS_FRAGMENT: {
    en: (p) => `${p.field} contains a fragment ("#…"); redirect URIs must not have one.`,
    de: (p) => `${p.field} enthält ein Fragment („#…“); Weiterleitungs-URIs dürfen keines haben.`,
  },
  URI_SCHEME_NOT_ALLOWED: {
    en: (p) => `${p.field} uses the scheme "${p.scheme}", which can never serve as a redirect target (it runs code, or names something local or inside the browser).`,
    de: (p) => `${p.field} verwendet das Schema „${p.scheme}“, das nie als Weiterleitungsziel dienen kann (es führt Code aus oder bezeichnet etwas Lokales oder im Browser).`,
  },
  // --- URIs a browser would read differently from their text (uri-rules.ts) ---
  URI_HAS_BACKSLASH: {
    en: (p) => `${p.field} contains a backslash; browsers read it as "/", other parsers do not. Write "/" or encode it as %5C.`,
    de: (p) => `${p.field} enthält einen Backslash; Browser lesen ihn als „/“, andere Parser nicht. Bitte „/“ schreiben oder als %5C kodieren.`,
  },
  URI_NOT_ASCII: {
    en: (p) => `${p.field} contains characters outside ASCII; percent-encode them and write host names as A-labels${p.canonical ? `, as in ${p.canonical}` : ''}.`,
    de: (p) => `${p.field} enthält Zeichen außerhalb von ASCII; bitte prozentkodieren und Hostnamen als A-Label schreiben${p.canonical ? `, etwa ${p.canonical}` : ''}.`,
  },
  URI_NO_AUTHORITY: {
    en: (p) => `${p.field} has no "//" after the scheme; a browser would guess a host from the path${p.canonical ? ` (${p.canonical})` : ''}. Write the host after "//".`,
    de: (p) => `${p.field} hat kein „//“ nach dem Schema; ein Browser würde den Host aus dem Pfad erraten${p.canonical ? ` (${p.canonical})` : ''}. Bitte den Host nach „//“ angeben.`,
  },
  URI_EMPTY_HOST: {
    en: (p) => `${p.field} has no host between "//" and the path; a browser would take the first path segment as the host.`,
    de: (p) => `${p.field} hat keinen Host zwischen „//“ und dem Pfad; ein Browser würde das erste Pfadsegment als Host nehmen.`,
  },
  URI_HAS_USERINFO: {
    en: (p) => `${p.field} contains a user name or password ("…@" before the host), which a redirect URI cannot have.`,
    de: (p) => `${p.field} enthält Benutzername oder Passwort („…@“ vor dem Host), die eine Weiterleitungs-URI nicht haben kann.`,
  },
  URI_HOST_NOT_CANONICAL: {
    en: (p) => `${p.field} spells its host in a form a browser rewrites${p.host ? ` (to ${p.host})` : ''}; write the host exactly as the browser will use it.`,
    de: (p) => `${p.field} schreibt den Host in einer Form, die ein Browser umschreibt${p.host ? ` (zu ${p.host})` : ''}; bitte den Host so angeben, wie der Browser ihn verwendet.`,
  },
  URI_HOST_INVALID: {
    en: (p) => `${p.field} has a host${p.host ? ` "${p.host}"` : ''} that is no host name (only letters, digits, "-", "_" and ".", or an IP address).`,
    de: (p) => `${p.field} hat einen Host${p.host ? ` „${p.host}“` : ''}, der kein Hostname ist (nur Buchstaben, Ziffern, „-“, „_“ und „.“ oder eine IP-Adresse).`,
  },
  URI_PATH_DOT_SEGMENT: {
    en: (p) => `${p.field} has a "." or ".." segment in its path (also as %2e), which a browser removes; write the path it stands for.`,
    de: (p) => `${p.field} hat ein Pfadsegment „.“ oder „..“ (auch als %2e), das ein Browser entfernt; bitte den gemeinten Pfad angeben.`,
  },
  ORIGIN_HAS_BACKSLASH: {
    en: (p) => `${p.field} contains a backslash, which ends the host for a browser; an origin cannot have one.`,
    de: (p) => `${p.field} enthält einen Backslash, der für einen Browser den Host beendet; ein Origin kann keinen haben.`,
  },
  ORIGIN_WILDCARD: {
    en: (p) => `${p.field} contains "*"; an origin names one site, so list each origin instead of a pattern.`,
    de: (p) => `${p.field} enthält „*“; ein Origin bezeichnet genau eine Site, bitte jedes Origin einzeln statt eines Musters angeben.`,
  },
  ORIGIN_HOST_INVALID: {
    en: (p) => `${p.field} has a host${p.host ? ` "${p.host}"` : ''} that is no host name (only letters, digits, "-", "_" and ".", or an IP address).`,
    de: (p) => `${p.field} hat einen Host${p.host ? ` „${p.host}“` : ''}, der kein Hostname ist (nur Buchstaben, Ziffern, „-“, „_“ und „.“ oder eine IP-Adresse).`,
  },
  ORIGIN_SCHEME_NOT_ALLOWED: {
    en: (p) => `${p.field} uses the scheme "${p.scheme ?? ''}", which no web page or app origin has.`,
    de: (p) => `${p.field} verwendet das Schema „${p.scheme ?? ''}“, das kein Origin einer Webseite oder App hat.`,
  },
  ORIGIN_NOT_SERIALIZED: {
    en: (p) => `${p.field} is not written the way a browser sends an origin${p.origin ? `; write ${p.origin}` : ''} (lower case, no default or empty port).`,
    de: (p) => `${p.field} ist nicht so geschrieben, wie ein Browser ein Origin sendet${p.origin ? `; bitte ${p.origin} schreiben` : ''} (Kleinschreibung, kein Standard- oder leerer Port).`,
  },
  ORIGIN_EMPTY: {
    en: (p) => `${p.field} is empty; every entry must be an origin such as https://app.example.`,
    de: (p) => `${p.field} ist leer; jeder Eintrag muss ein Origin wie https://app.example sein.`,
  },
  ORIGIN_TOO_LONG: {
    en: (p) => `${p.field} is longer than the allowed ${p.max} characters.`,
    de: (p) => `${p.field} ist länger als die erlaubten ${p.max} Zeichen.`,
  },
  ORIGIN_INVALID_CHARACTER: {
    en: (p) => `${p.field} contains whitespace or control characters, which an origin cannot have.`,
    de: (p) => `${p.field} enthält Leer- oder Steuerzeichen, die ein Origin nicht haben kann.`,
  },
  ORIGIN_MALFORMED: {
    en: (p) => `${p.field} must have the form scheme://host or scheme://host:port.`,
    de: (p) => `${p.field} muss die Form schema://host oder schema://host:port haben.`,
  },
  ORIGIN_HAS_PATH: {
    en: (p) => `${p.field} has a path; an origin ends right after the host or port (drop any trailing "/").`,
    de: (p) => `${p.field} hat einen Pfad; ein Origin endet direkt nach Host oder Port (auch ohne abschließendes „/“).`,
  },
  ORIGIN_HAS_QUERY: {
    en: (p) => `${p.field} has a query ("?…"), which an origin cannot have.`,
    de: (p) => `${p.field} hat einen Query-Teil („?…“), den ein Origin nicht haben kann.`,
  },
  ORIGIN_HAS_FRAGMENT: {
    en: (p) => `${p.field} has a fragment ("#…"), which an origin cannot have.`,
    de: (p) => `${p.field} hat ein Fragment („#…“), das ein Origin nicht haben kann.`,
  },
  ORIGIN_HAS_USERINFO: {
    en: (p) => `${p.field} contains a user name or password ("…@"), which an origin cannot have.`,
    de: (p) => `${p.field} enthält Benutzername oder Passwort („…@“), die ein Origin nicht haben kann.`,
  },
  ENUM_UNKNOWN: {
    en: (p) => `${p.field} has the value "${p.value}", which is not one of the allowed values.`,
    de: (p) => `${p.field} hat den Wert „${p.value}“, der nicht zu den erlaubten Werten gehört.`,
  },
  RESPONSE_TYPE_NEEDS_GRANT: {
    en: (p) => `${p.field}: the response type ${p.responseType} only works together with one of these grant types: ${p.grantTypes}.`,
    de: (p) => `${p.field}: Der Antworttyp ${p.responseType} funktioniert nur zusammen mit einem dieser Grant-Typen: ${p.grantTypes}.`,
  },
  CLOCK_SKEW_INVALID: {
    en: () => 'clockSkew is not a valid duration: seconds and nanoseconds must share one sign and nanoseconds stay below one second.',
    de: () => 'clockSkew ist keine gültige Dauer: Sekunden und Nanosekunden müssen dasselbe Vorzeichen haben und die Nanosekunden unter einer Sekunde bleiben.',
  },
  CLOCK_SKEW_NEGATIVE: {
    en: () => 'clockSkew cannot be negative.',
    de: () => 'clockSkew darf nicht negativ sein.',
  },
  CLOCK_SKEW_TOO_LARGE: {
    en: (p) => `clockSkew may be at most ${p.max}.`,
    de: (p) => `clockSkew darf höchstens ${p.max} betragen.`,
  },
};

const FALLBACK: Sentence = {
  en: (p) => `${p.field} is not valid.`,
  de: (p) => `${p.field} ist ungültig.`,
};

/** The violation of `field` by rule `code` (with its parameters), explained from the catalog. */
export function oidcViolation(field: string, code: string, params?: Params): CodedViolation {
  const texts = Object.hasOwn(CATALOG, code) ? CATALOG[code]! : FALLBACK;
  return new FieldViolation(field, texts, { code, params }) as CodedViolation;
}

/** What identifies an OIDC violation: field, code, parameters (a CodedViolation is one). */
export interface OidcViolationFacts {
  field: string;
  code: string;
  params?: Params;
}

/** A sentence explaining one violation, in the given language. */
export function describeViolation(v: OidcViolationFacts, lang: Language): string {
  return oidcViolation(v.field, v.code, v.params).describe(lang);
}

/** The codes this module can describe (used by tests to prove the catalog is complete). */
export const VIOLATION_CODES: readonly string[] = Object.keys(CATALOG);
