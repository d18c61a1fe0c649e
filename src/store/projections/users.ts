import { usernameKey } from '../../domain/identity/identifiers.js';
import type { EventTypeName } from '../../domain/events/index.js';
import { sql } from '../sql.js';
import { alongside, type ProjectableEvent, type Projection } from './projection.js';

// The key is computed here, from the event's username, by the same pure function
// everywhere (identifiers.ts): events stay as they were, and replaying them
// rebuilds the same keys whatever the database's locale.

/** An event that changes nothing of the user's row but its version. */
const versionMoves = (e: ProjectableEvent<EventTypeName>) => alongside(sql`update users set sequence = ${e.sequence} where id = ${e.aggregateId}`);

export const usersProjection: Projection = {
  'user.human.added': (e) => sql`
    insert into users (id, org_id, kind, username, username_key, login_name_key, given_name, family_name, display_name, email, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, 'human', ${e.payload.username}, ${usernameKey(e.payload.username)}, ${usernameKey(e.payload.username)}, ${e.payload.givenName},
            ${e.payload.familyName}, ${e.payload.displayName}, ${e.payload.email},
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'user.machine.added': (e) => sql`
    insert into users (id, org_id, kind, username, username_key, login_name_key, name, description, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, 'machine', ${e.payload.username}, ${usernameKey(e.payload.username)}, ${usernameKey(e.payload.username)}, ${e.payload.name},
            ${e.payload.description}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  // The hash stays in this row for the login's check; no API answer selects it.
  'user.password.changed': (e) => sql`
    update users set password_hash = ${e.payload.passwordHash}, password_change_required = ${e.payload.changeRequired},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  // A login's outcome is no change of the user: only its version moves on.
  'user.login.succeeded': versionMoves,
  'user.password.check.failed': versionMoves,
  // The OpenID Provider's audit trail (throttle, grants, revocations): only the user's version moves on.
  'user.login.throttled': versionMoves,
  'user.oidc.grant.saved': versionMoves,
  'user.oidc.grant.revoked': versionMoves,
  'user.oidc.token.revoked': versionMoves,
  // The sessions and tokens go by projections/oidc-sessions.ts; here only the user's version moves on.
  'user.sessions.ended': versionMoves,
  // Recovery codes live in user_recovery_codes (./recovery-codes.ts); here only the user's version moves on.
  'user.recovery.codes.generated': versionMoves,
  'user.recovery.code.used': versionMoves,
  'user.recovery.code.check.failed': versionMoves,
  'user.recovery.codes.removed': versionMoves,
  // The key or passkey goes by its own event; here only the user's version moves on.
  'user.factor.removed': versionMoves,
  // The authenticator app lives in user_totp (./user-totp.ts); here only the user's version moves on.
  'user.totp.added': versionMoves,
  'user.totp.verified': versionMoves,
  'user.totp.removed': versionMoves,
  'user.totp.used': versionMoves,
  'user.totp.check.failed': versionMoves,
  // An invitation lives in the user's events only (its code's hash; domain/invite); here only the user's version moves on.
  'user.invite.code.added': versionMoves,
  'user.invite.code.used': versionMoves,
  'user.invite.code.check.failed': versionMoves,
  // Registered under "verification before the first login": the login refuses the user until its address is verified.
  // Only the address it was verified for (a verification racing a change of address verifies nothing).
  'user.email.verified': (e) => sql`
    update users set email_verified = true, registration_unverified = false, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId} and email = ${e.payload.email}`,
  'user.email.code.added': versionMoves,
  'user.email.code.check.failed': versionMoves,
  'user.self.registered': (e) => sql`update users set registration_unverified = ${e.payload.verificationRequired}, sequence = ${e.sequence} where id = ${e.aggregateId}`,
  // The token row lives in `personal_access_tokens`; here only the user's version moves on.
  'user.pat.added': (e) => sql`
    update users set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'user.pat.removed': (e) => sql`
    update users set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  // The entries live in user_metadata (./user-metadata.ts); what apps are told of the user changed (userinfo's updated_at).
  'user.metadata.set': (e) => sql`
    update users set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'user.metadata.removed': (e) => sql`
    update users set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  // Another address is not verified (the right-hand side reads the row as it was).
  'user.human.changed': (e) => sql`
    update users set email_verified = email_verified and email is not distinct from ${e.payload.email}, username = ${e.payload.username}, username_key = ${usernameKey(e.payload.username)}, login_name_key = ${usernameKey(e.payload.username)}, given_name = ${e.payload.givenName},
      family_name = ${e.payload.familyName}, display_name = ${e.payload.displayName}, email = ${e.payload.email},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'user.deactivated': (e) => stateChange(e, 'inactive'),
  'user.reactivated': (e) => stateChange(e, 'active'),
  'user.locked': (e) => stateChange(e, 'locked'),
  'user.unlocked': (e) => stateChange(e, 'active'),
  // The row goes (its username is free again); tokens and memberships go by their projections.
  'user.removed': (e) => sql`delete from users where id = ${e.aggregateId}`,
};

function stateChange(e: { aggregateId: string; createdAt: Date | null; sequence: number }, state: 'active' | 'inactive' | 'locked') {
  return sql`
    update users set state = ${state}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`;
}
