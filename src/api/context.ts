// What every handler may use: the commands and queries, built once at start.
// A handler converts the request, calls one command or query, and converts
// the answer; it never builds an event or touches storage.
import type { HandlerContext } from '@connectrpc/connect';
import { callerKey, type Call } from '../access/caller.js';
import type { Commands } from '../commands/index.js';
import { invalidRequest, KeyholdError, violation } from '../domain/errors/keyhold-error.js';
import { negotiateLanguage, type Language } from '../domain/i18n/language.js';
import type { Queries } from '../queries/index.js';
import type { Mailer } from '../mail/mailer.js';

export interface ApiDeps {
  commands: Commands;
  queries: Queries;
  /** What mailing a link needs (invitations, address codes, reset links); absent: no mail, as if none were configured. */
  mail?: MailDeps;
}

/** The mailer, and the issuer every link is built from (never a request header). */
export interface MailDeps {
  mailer: Mailer;
  issuer: () => string;
}

/** The header naming the org a management call acts in (docs/decisions.md). */
export const ORG_HEADER = 'x-service-orgid';
/** ZITADEL's name for the same header: clients written for ZITADEL send this one. */
export const ZITADEL_ORG_HEADER = 'x-zitadel-orgid';

/**
 * The org a request names, by either header (trimmed), or undefined. Both with
 * the same id are fine; with different ids the request is refused (400 naming
 * both) rather than one of them silently winning.
 */
export function requestedOrg(headers: Pick<Headers, 'get'>): string | undefined {
  const service = headers.get(ORG_HEADER)?.trim() || undefined;
  const zitadel = headers.get(ZITADEL_ORG_HEADER)?.trim() || undefined;
  if (service && zitadel && service !== zitadel) {
    const texts = (other: string) => ({ en: `names another organization than ${other}; send one of them`, de: `nennt eine andere Organisation als ${other}; senden Sie nur einen` });
    throw invalidRequest([violation(ORG_HEADER, texts(ZITADEL_ORG_HEADER)), violation(ZITADEL_ORG_HEADER, texts(ORG_HEADER))]);
  }
  return service ?? zitadel;
}

/** The call: the authenticated caller (the auth interceptor guarantees one on protected methods) and the org the request names. */
export function callOf(ctx: HandlerContext): Call {
  const caller = ctx.values.get(callerKey);
  if (!caller) throw new KeyholdError('UNAUTHENTICATED');
  const org = requestedOrg(ctx.requestHeader);
  return org ? { caller, org } : { caller };
}

export function languageOf(ctx: HandlerContext): Language {
  return negotiateLanguage(ctx.requestHeader.get('accept-language'));
}
