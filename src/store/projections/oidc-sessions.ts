// A user's sessions end with the change that ends them, in the same
// transaction as its event: every row of the OpenID Provider's state that
// belongs to the user (oidc_payloads.account_id — sessions, grants, codes,
// device codes, refresh and access tokens, a machine user's client-credentials
// tokens) is deleted. A browser whose session went is asked to sign in again;
// a refresh token, code or access token whose row or grant went is refused
// everywhere at once (docs/security.md, section 7). A sign-in in flight that
// belongs to the user (oidc/adapter.ts interactionOwner) is kept but its
// outcome replaced: its resume answers the app access_denied, and its steps
// (a password-change form held open) find no sign-in to go on with.
//
// The changes that end them: LockUser (and the lockout policy's lock),
// DeactivateUser, RemoveUser, RemoveMySessions, a password set by someone
// else than the user or with changeRequired (an administrator's reset). A
// machine user's client secret regenerated or removed ends its stored
// client-credentials tokens too (they were got with the secret an
// administrator meant to revoke), noting no instant: its JWTs name the secret
// they were got with (oidc/machine-clients.ts), which is exact, where an
// instant of whole seconds would refuse the new secret's first token. A
// user's own new password (at the login or SetPassword on itself) keeps the
// session it was set in.
//
// What cannot be deleted is checked against when the sessions ended, noted in
// the same statement (a SessionsEnded row of the user, ms since epoch, kept
// with no expiry): a JWT access token (never stored) issued in that second or
// before is refused where Keyhold checks one (userinfo, a machine user's on
// the API), and a session saved again by a request in flight at that moment
// is ended where it is read (oidc/adapter.ts).
//
// Only when the event happens: a replay of stored events (read models rebuilt
// from history) deletes nothing, as the sessions alive then began later. And a
// user added in the same transaction (AddHumanUser's first password) has
// nothing to end: no instant is noted, or the user's first sign-ins, in that
// second, would count as before it.
import { sql } from '../sql.js';
import { SESSIONS_ENDED_MODEL } from '../oidc-store.js';
import type { ProjectableEvent, Projection } from './projection.js';

/** The outcome a sign-in in flight gets when its user's sessions end (the library's interaction result). */
const ENDED_SIGN_IN = JSON.stringify({ error: 'access_denied', error_description: "the user's sessions ended during this sign-in" });

// The grants a session made (its authorizations in the provider's row, and as
// user_sessions noted them): what ends with it, and what stays with a kept one.
// Written out in each statement below (a statement's values are its parameters).
// Every session but `keep` (when one is kept: ending the others from it): its row, its grants and
// their tokens stay, and the instant noted names it, so the adapter lets it stay (adapter.ts).
const endSessions = (e: ProjectableEvent<'user.locked' | 'user.deactivated' | 'user.removed' | 'user.sessions.ended' | 'user.password.changed'>) => {
  const keep = e.type === 'user.sessions.ended' ? (e.payload as { keep?: string }).keep : undefined;
  return e.createdAt === null
    ? sql`
      with kept as (
        select a.value->>'grantId' as g from oidc_payloads s, jsonb_each(s.payload->'authorizations') a
          where s.model = 'Session' and s.account_id = ${e.aggregateId} and s.uid = ${keep ?? null}::text and a.value->>'grantId' is not null
        union select a.value->>'grantId' from user_sessions u, jsonb_each(u.apps) a
          where u.id = ${keep ?? null}::text and u.user_id = ${e.aggregateId} and a.value->>'grantId' is not null),
      ended as (delete from oidc_payloads where account_id = ${e.aggregateId} and model <> 'Interaction'
        and not coalesce(model = 'Session' and uid = ${keep ?? null}::text, false)
        and not coalesce(grant_id in (select g from kept), false)
        and not (model = 'Grant' and key in (select g from kept))),
      refused as (update oidc_payloads set payload = jsonb_set(payload, '{result}', ${ENDED_SIGN_IN}::text::jsonb) where account_id = ${e.aggregateId} and model = 'Interaction')
      insert into oidc_payloads (model, key, payload)
      select ${SESSIONS_ENDED_MODEL}, ${e.aggregateId}, jsonb_strip_nulls(jsonb_build_object('at', floor(extract(epoch from clock_timestamp()) * 1000), 'keep', ${keep ?? null}::text))
      where not exists (select 1 from users where id = ${e.aggregateId} and created_at = now())
      on conflict (model, key) do update set payload = excluded.payload`
    : undefined;
};

// One session: its row and the grants it made, with their codes and tokens. A request in flight
// that saves it again finds it ended (user_sessions.ended_at; adapter.ts).
const endOneSession = (e: ProjectableEvent<'user.session.ended'>) =>
  e.createdAt === null
    ? sql`
      with gone as (
        select a.value->>'grantId' as g from oidc_payloads s, jsonb_each(s.payload->'authorizations') a
          where s.model = 'Session' and s.account_id = ${e.aggregateId} and s.uid = ${e.payload.sessionId}::text and a.value->>'grantId' is not null
        union select a.value->>'grantId' from user_sessions u, jsonb_each(u.apps) a
          where u.id = ${e.payload.sessionId}::text and u.user_id = ${e.aggregateId} and a.value->>'grantId' is not null)
      delete from oidc_payloads where account_id = ${e.aggregateId} and model <> 'Interaction'
        and (coalesce(model = 'Session' and uid = ${e.payload.sessionId}::text, false)
          or coalesce(grant_id in (select g from gone), false)
          or (model = 'Grant' and key in (select g from gone)))`
    : undefined;

const endMachineTokens = (e: ProjectableEvent<'user.machine.secret.set' | 'user.machine.secret.removed'>) =>
  e.createdAt === null ? sql`delete from oidc_payloads where account_id = ${e.aggregateId} and model = 'ClientCredentials'` : undefined;

export const oidcSessionsProjection: Projection = {
  'user.locked': endSessions,
  'user.deactivated': endSessions,
  'user.removed': endSessions,
  'user.sessions.ended': endSessions,
  'user.session.ended': endOneSession,
  'user.machine.secret.set': endMachineTokens,
  'user.machine.secret.removed': endMachineTokens,
  'user.password.changed': (e) => (e.creator !== e.aggregateId || e.payload.changeRequired ? endSessions(e) : undefined),
};
