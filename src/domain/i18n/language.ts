// Language negotiation for localized messages (compliance report, error details).
// Keyhold speaks the languages listed here; English is the fallback.

export const SUPPORTED_LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

function isSupported(tag: string): tag is Language {
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(tag);
}

/**
 * Picks the best supported language from an Accept-Language header, honouring
 * quality values (RFC 9110 §12.5.4): "de-CH;q=0.9, en;q=0.8" → "de". Region
 * subtags match their primary language; q=0 excludes; "*" means the default.
 */
export function negotiateLanguage(acceptLanguage: string | null | undefined): Language {
  if (!acceptLanguage) return DEFAULT_LANGUAGE;
  let best: Language | undefined;
  let bestQ = 0;
  // Bounded: a hostile header cannot make this loop long.
  for (const part of acceptLanguage.slice(0, 512).split(',')) {
    const [rawTag, ...params] = part.trim().split(';');
    const tag = rawTag.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (!(q > 0) || q > 1) continue;
    const primary = tag === '*' ? DEFAULT_LANGUAGE : tag.split('-')[0];
    if (isSupported(primary) && q > bestQ) {
      best = primary;
      bestQ = q;
    }
  }
  return best ?? DEFAULT_LANGUAGE;
}
