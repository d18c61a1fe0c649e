// What every handler may use: the database, the event store, the config, the
// log, and the authenticated caller (put there by the auth interceptor).
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { Logger } from 'pino';
import type { Membership } from '../domain/identity/permissions.js';
import type { Language } from '../domain/i18n/language.js';
import { negotiateLanguage } from '../domain/i18n/language.js';
import type { Config } from '../server/config.js';
import type { Database } from '../store/database.js';
import type { EventStore } from '../store/event-store.js';
import type { RegistrationVerifier } from '../server/verification-threads.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';

export interface Deps {
  config: Config;
  database: Database;
  store: EventStore;
  log: Logger;
  /** domain/webauthn verifyRegistration, on a verification thread when configured (server/verification-threads.ts). */
  verifyRegistration: RegistrationVerifier;
}

export interface Caller {
  userId: string;
  /** The org the caller's user belongs to: the default org context. */
  orgId: string;
  tokenId: string;
  memberships: readonly Membership[];
}

export const callerKey = createContextKey<Caller | undefined>(undefined, { description: 'authenticated caller' });

/** The authenticated caller; the auth interceptor guarantees one on protected methods. */
export function callerOf(ctx: HandlerContext): Caller {
  const caller = ctx.values.get(callerKey);
  if (!caller) throw new KeyholdError('UNAUTHENTICATED');
  return caller;
}

export function languageOf(ctx: HandlerContext): Language {
  return negotiateLanguage(ctx.requestHeader.get('accept-language'));
}
