// A user's login sessions as the user sees them (user_sessions, migration 0024):
// the change that ends sessions marks them ended in its own transaction, beside
// the deletion of the provider's state (oidc-sessions.ts). An ended row is what
// the back-channel logout sender takes (server/oidc/backchannel-logout.ts): the
// apps each ended session signed in to are told, once.
//
// Only when the event happens (as oidc-sessions.ts): a replay marks nothing.
import { sql } from '../sql.js';
import type { ProjectableEvent, Projection } from './projection.js';

const endAll = (e: ProjectableEvent<'user.locked' | 'user.deactivated' | 'user.removed' | 'user.sessions.ended' | 'user.password.changed'>) => {
  const keep = e.type === 'user.sessions.ended' ? (e.payload as { keep?: string }).keep : undefined;
  return e.createdAt === null
    ? sql`update user_sessions set ended_at = now() where user_id = ${e.aggregateId} and ended_at is null and id is distinct from ${keep ?? null}::text`
    : undefined;
};

export const userSessionsProjection: Projection = {
  'user.locked': endAll,
  'user.deactivated': endAll,
  'user.removed': endAll,
  'user.sessions.ended': endAll,
  'user.session.ended': (e) =>
    e.createdAt === null ? sql`update user_sessions set ended_at = now() where id = ${e.payload.sessionId} and user_id = ${e.aggregateId} and ended_at is null` : undefined,
  // The same rule as the provider's state (oidc-sessions.ts): someone else's password, or one to change, ends them.
  'user.password.changed': (e) => (e.creator !== e.aggregateId || e.payload.changeRequired ? endAll(e) : undefined),
};
