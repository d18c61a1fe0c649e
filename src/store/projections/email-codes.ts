// Reset links (email_codes, purpose 'reset') outlive no password and no
// suspension: a new password, whoever set it (the user on the account page, an
// administrator, an invitation, a reset), and a user locked or deactivated (or
// its whole org), spend every link of the user still open, in the append's
// transaction. Whoever changed a password they think is known to someone else,
// or locked an account they think is taken over, must not leave a link behind
// that sets another — not even one that would work again after the unlock.
// Only when the event happens: a replay of stored events (read models rebuilt
// from history) spends nothing, as the links open then were asked for later.
import { sql } from '../sql.js';
import type { Projection, ProjectableEvent } from './projection.js';

const spendUsers = (e: ProjectableEvent<'user.password.changed' | 'user.locked' | 'user.deactivated'>) =>
  e.createdAt === null ? sql`update email_codes set used_at = now() where user_id = ${e.aggregateId} and purpose = 'reset' and used_at is null` : undefined;

export const emailCodesProjection: Projection = {
  'user.password.changed': spendUsers,
  'user.locked': spendUsers,
  'user.deactivated': spendUsers,
  'org.deactivated': (e) =>
    e.createdAt === null
      ? sql`update email_codes set used_at = now() where purpose = 'reset' and used_at is null and user_id in (select id from users where org_id = ${e.aggregateId})`
      : undefined,
};
