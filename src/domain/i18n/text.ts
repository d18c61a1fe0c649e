// THE way Keyhold says something to a person: a text in every language it
// speaks (a missing translation is a type error), chosen by one function.
// Each language's text is a template — "{name}" filled from the parameters,
// e.g. the reasons table (../errors/reasons.ts) — or a function of the
// parameters, where the sentence depends on them (the OIDC field catalog,
// the compliance report). Catalogs are tables of Texts keyed by a stable code.
import { DEFAULT_LANGUAGE, type Language } from './language.js';

export type Texts<P = Record<string, unknown>> = Readonly<Record<Language, string | ((params: P) => string)>>;

/** The text in `lang`, with `params` filled in. Unknown placeholders stay visible. */
export function localize<P>(texts: Texts<P>, lang: Language, params: P): string {
  const text = texts[lang] ?? texts[DEFAULT_LANGUAGE];
  if (typeof text === 'function') return text(params);
  const values = (params ?? {}) as Record<string, unknown>;
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const value = Object.hasOwn(values, key) ? values[key] : undefined;
    return value === undefined ? whole : String(value);
  });
}
