// Passkeys: pending after registration starts, ready once verified; a
// replaced or removed passkey's row is deleted. And every verified WebAuthn
// credential id, of a security key or a passkey, in webauthn_credentials:
// its primary key keeps one credential to one token of one user, across both
// kinds, in the append's transaction.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const passkeysProjection: Projection = {
  'passkey.registration.started': (e) => sql`
    insert into passkeys (id, user_id, org_id, state, rp_id, challenge, expires_at, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.userId}, ${e.resourceOwner}, 'pending', ${e.payload.rpId},
            ${e.payload.challenge}, ${e.payload.expiresAt}::text::timestamptz, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'passkey.verified': (e) => sql`
    update passkeys set state = 'ready', name = ${e.payload.passkeyName}, credential_id = ${e.payload.credentialId},
      public_key = ${e.payload.publicKey}, algorithm = ${e.payload.algorithm}, format = ${e.payload.format},
      aaguid = ${e.payload.aaguid}, sign_count = ${e.payload.signCount}, transports = ${e.payload.transports}::text[],
      backup_eligible = ${e.payload.backupEligible}, backed_up = ${e.payload.backedUp}, rp_id = ${e.payload.rpId},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'passkey.registration.replaced': (e) => sql`delete from passkeys where id = ${e.aggregateId}`,
  'passkey.removed': (e) => sql`delete from passkeys where id = ${e.aggregateId}`,
  'passkey.renamed': (e) => sql`
    update passkeys set name = ${e.payload.passkeyName}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  // A removed user's passkeys go with it (its events stay).
  'user.removed': (e) => sql`delete from passkeys where user_id = ${e.aggregateId}`,
  'passkey.used': (e) => sql`
    update passkeys set sign_count = ${e.payload.signCount}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
};

export const webauthnCredentialsProjection: Projection = {
  'u2f.verified': (e) => sql`
    insert into webauthn_credentials (credential_id, user_id, kind, token_id) values (${e.payload.credentialId}, ${e.payload.userId}, 'u2f', ${e.aggregateId})`,
  'u2f.removed': (e) => sql`delete from webauthn_credentials where token_id = ${e.aggregateId}`,
  'passkey.verified': (e) => sql`
    insert into webauthn_credentials (credential_id, user_id, kind, token_id) values (${e.payload.credentialId}, ${e.payload.userId}, 'passkey', ${e.aggregateId})`,
  'passkey.removed': (e) => sql`delete from webauthn_credentials where token_id = ${e.aggregateId}`,
  // A removed user signs in with none of its credentials; its passkeys' ids are free again.
  'user.removed': (e) => sql`delete from webauthn_credentials where user_id = ${e.aggregateId} and kind = 'passkey'`,
};
