// Field violations of an AddOIDCApp request and their human-readable sentences.
// The `code` is the stable contract (tests and clients match on it); the
// sentences are for people and may be reworded at any time.

import type { Language } from '../i18n/language.js';

export interface FieldViolation {
  /** JSON path in lowerCamelCase: 'name', 'redirectUris[2]', 'clockSkew'. */
  field: string;
  /** Stable UPPER_SNAKE id, e.g. 'NAME_EMPTY'. */
  code: string;
  params?: Record<string, string | number>;
}

type Params = Record<string, string | number>;
type Sentence = (field: string, p: Params) => string;

// One row per code, one column per language. Keeping both languages side by
// side makes a missing translation visible in review (and a type error).
const CATALOG: Readonly<Record<string, Readonly<Record<Language, Sentence>>>> = {
  NAME_EMPTY: {
    en: () => 'The application needs a name; an empty or blank name is not accepted.',
    de: () => 'Die Anwendung braucht einen Namen; ein leerer Name oder einer nur aus Leerzeichen wird nicht angenommen.',
  },
  NAME_TOO_LONG: {
    en: (_f, p) => `The application name may have at most ${p.max} characters, but it has ${p.length}.`,
    de: (_f, p) => `Der Anwendungsname darf höchstens ${p.max} Zeichen lang sein, hat aber ${p.length}.`,
  },
  NAME_INVALID_CHARACTER: {
    en: () => 'The application name contains control characters such as line breaks, which are not allowed.',
    de: () => 'Der Anwendungsname enthält Steuerzeichen wie Zeilenumbrüche; diese sind nicht erlaubt.',
  },
  LIST_TOO_LONG: {
    en: (f, p) => `${f} may hold at most ${p.max} entries, but ${p.count} were sent.`,
    de: (f, p) => `${f} darf höchstens ${p.max} Einträge enthalten, gesendet wurden ${p.count}.`,
  },
  URI_EMPTY: {
    en: (f) => `${f} is empty; every entry must be a complete URI.`,
    de: (f) => `${f} ist leer; jeder Eintrag muss eine vollständige URI sein.`,
  },
  URI_TOO_LONG: {
    en: (f, p) => `${f} is longer than the allowed ${p.max} characters.`,
    de: (f, p) => `${f} ist länger als die erlaubten ${p.max} Zeichen.`,
  },
  URI_INVALID_CHARACTER: {
    en: (f) => `${f} contains whitespace or control characters; encode them or remove them.`,
    de: (f) => `${f} enthält Leer- oder Steuerzeichen; bitte kodieren oder entfernen.`,
  },
  URI_NOT_ABSOLUTE: {
    en: (f) => `${f} must be an absolute URI that starts with a scheme, for example https://app.example/callback.`,
    de: (f) => `${f} muss eine absolute URI mit Schema sein, zum Beispiel https://app.example/callback.`,
  },
  URI_MALFORMED: {
    en: (f) => `${f} is not a well-formed URI.`,
    de: (f) => `${f} ist keine gültig aufgebaute URI.`,
  },
  URI_HAS_FRAGMENT: {
    en: (f) => `${f} contains a fragment ("#…"); redirect URIs must not have one.`,
    de: (f) => `${f} enthält ein Fragment („#…“); Weiterleitungs-URIs dürfen keines haben.`,
  },
  URI_SCHEME_NOT_ALLOWED: {
    en: (f, p) => `${f} uses the scheme "${p.scheme}", which can never serve as a redirect target.`,
    de: (f, p) => `${f} verwendet das Schema „${p.scheme}“, das nie als Weiterleitungsziel dienen kann.`,
  },
  ORIGIN_EMPTY: {
    en: (f) => `${f} is empty; every entry must be an origin such as https://app.example.`,
    de: (f) => `${f} ist leer; jeder Eintrag muss ein Origin wie https://app.example sein.`,
  },
  ORIGIN_TOO_LONG: {
    en: (f, p) => `${f} is longer than the allowed ${p.max} characters.`,
    de: (f, p) => `${f} ist länger als die erlaubten ${p.max} Zeichen.`,
  },
  ORIGIN_INVALID_CHARACTER: {
    en: (f) => `${f} contains whitespace or control characters, which an origin cannot have.`,
    de: (f) => `${f} enthält Leer- oder Steuerzeichen, die ein Origin nicht haben kann.`,
  },
  ORIGIN_MALFORMED: {
    en: (f) => `${f} must have the form scheme://host or scheme://host:port.`,
    de: (f) => `${f} muss die Form schema://host oder schema://host:port haben.`,
  },
  ORIGIN_HAS_PATH: {
    en: (f) => `${f} has a path; an origin ends right after the host or port (drop any trailing "/").`,
    de: (f) => `${f} hat einen Pfad; ein Origin endet direkt nach Host oder Port (auch ohne abschließendes „/“).`,
  },
  ORIGIN_HAS_QUERY: {
    en: (f) => `${f} has a query ("?…"), which an origin cannot have.`,
    de: (f) => `${f} hat einen Query-Teil („?…“), den ein Origin nicht haben kann.`,
  },
  ORIGIN_HAS_FRAGMENT: {
    en: (f) => `${f} has a fragment ("#…"), which an origin cannot have.`,
    de: (f) => `${f} hat ein Fragment („#…“), das ein Origin nicht haben kann.`,
  },
  ORIGIN_HAS_USERINFO: {
    en: (f) => `${f} contains a user name or password ("…@"), which an origin cannot have.`,
    de: (f) => `${f} enthält Benutzername oder Passwort („…@“), die ein Origin nicht haben kann.`,
  },
  ENUM_UNKNOWN: {
    en: (f, p) => `${f} has the value "${p.value}", which is not one of the allowed values.`,
    de: (f, p) => `${f} hat den Wert „${p.value}“, der nicht zu den erlaubten Werten gehört.`,
  },
  RESPONSE_TYPE_NEEDS_GRANT: {
    en: (f, p) => `${f}: the response type ${p.responseType} only works together with one of these grant types: ${p.grantTypes}.`,
    de: (f, p) => `${f}: Der Antworttyp ${p.responseType} funktioniert nur zusammen mit einem dieser Grant-Typen: ${p.grantTypes}.`,
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
    en: (_f, p) => `clockSkew may be at most ${p.max}.`,
    de: (_f, p) => `clockSkew darf höchstens ${p.max} betragen.`,
  },
};

const FALLBACK: Readonly<Record<Language, Sentence>> = {
  en: (f) => `${f} is not valid.`,
  de: (f) => `${f} ist ungültig.`,
};

/** A sentence explaining one violation, in the given language. */
export function describeViolation(v: FieldViolation, lang: Language): string {
  const row = CATALOG[v.code] ?? FALLBACK;
  return (row[lang] ?? row.en)(v.field, v.params ?? {});
}

/** The codes this module can describe (used by tests to prove the catalog is complete). */
export const VIOLATION_CODES: readonly string[] = Object.keys(CATALOG);
