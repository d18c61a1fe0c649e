// What every handler may use: the commands and queries, built once at start.
// A handler converts the request, calls one command or query, and converts
// the answer; it never builds an event or touches storage.
import type { HandlerContext } from '@connectrpc/connect';
import { callerKey, type Call } from '../commands/caller.js';
import type { Commands } from '../commands/index.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { negotiateLanguage, type Language } from '../domain/i18n/language.js';
import type { Queries } from '../queries/index.js';

export interface ApiDeps {
  commands: Commands;
  queries: Queries;
}

/** The header naming the org a management call acts in (docs/decisions.md). */
export const ORG_HEADER = 'x-service-orgid';

/** The call: the authenticated caller (the auth interceptor guarantees one on protected methods) and the org the request names. */
export function callOf(ctx: HandlerContext): Call {
  const caller = ctx.values.get(callerKey);
  if (!caller) throw new KeyholdError('UNAUTHENTICATED');
  const org = ctx.requestHeader.get(ORG_HEADER)?.trim();
  return org ? { caller, org } : { caller };
}

export function languageOf(ctx: HandlerContext): Language {
  return negotiateLanguage(ctx.requestHeader.get('accept-language'));
}
