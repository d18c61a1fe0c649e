// A command's refusal as a page shows it to a person (the login's forms):
// the reason's text from the catalogue in the page's language, and what each
// violated field broke. Anything that is no refusal is no text: it is thrown on.
import type { Language } from '../i18n/language.js';
import { KeyholdError } from './keyhold-error.js';
import { renderMessage } from './reasons.js';

export function refusalText(thrown: unknown, lang: Language): string {
  if (!(thrown instanceof KeyholdError)) throw thrown;
  const said = renderMessage(thrown.reason, lang, thrown.metadata);
  const fields = thrown.violations.map((v) => v.describe(lang));
  return fields.length ? `${said} (${fields.join('; ')})` : said;
}
