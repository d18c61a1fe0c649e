// Who calls a command or a query: the caller the auth interceptor resolved
// from the bearer token (src/server/rpc/interceptors/auth.ts writes it into the
// call's context values, src/api reads it there with the same key), and the
// org the request names (x-service-orgid), for calls that act in an org.
import { createContextKey } from '@connectrpc/connect';
import type { Membership } from '../domain/identity/permissions.js';

export interface Caller {
  userId: string;
  /** The org the caller's user belongs to: the default org context. */
  orgId: string;
  tokenId: string;
  memberships: readonly Membership[];
}

/** A call of a command or query: the caller, and the org the request names, if any. */
export interface Call {
  caller: Caller;
  /** The org named by the request's x-service-orgid header, or ZITADEL's x-zitadel-orgid (trimmed; api/context.ts), or undefined. */
  org?: string;
}

/** The context key under which the auth interceptor leaves the caller for the handlers. */
export const callerKey = createContextKey<Caller | undefined>(undefined, { description: 'authenticated caller' });
