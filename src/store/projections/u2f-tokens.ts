// U2F / WebAuthn tokens: pending after registration starts, ready once verified.
// A removed token's row is deleted, which frees its credential id; so is a
// replaced registration's (it can never be verified). Rows of registrations
// long expired are deleted by a sweep, not by an event (queries/u2f-tokens.ts).
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const u2fTokensProjection: Projection = {
  'u2f.registration.started': (e) => sql`
    insert into u2f_tokens (id, user_id, org_id, state, rp_id, challenge, expires_at, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.userId}, ${e.resourceOwner}, 'pending', ${e.payload.rpId},
            ${e.payload.challenge}, ${e.payload.expiresAt}::text::timestamptz, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'u2f.verified': (e) => sql`
    update u2f_tokens set state = 'ready', name = ${e.payload.tokenName}, credential_id = ${e.payload.credentialId},
      public_key = ${e.payload.publicKey}, algorithm = ${e.payload.algorithm}, format = ${e.payload.format},
      aaguid = ${e.payload.aaguid}, sign_count = ${e.payload.signCount}, transports = ${e.payload.transports}::text[],
      backup_eligible = ${e.payload.backupEligible}, backed_up = ${e.payload.backedUp},
      user_verified = ${e.payload.userVerified}, rp_id = ${e.payload.rpId},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'u2f.registration.replaced': (e) => sql`delete from u2f_tokens where id = ${e.aggregateId}`,
  'u2f.removed': (e) => sql`delete from u2f_tokens where id = ${e.aggregateId}`,
  'u2f.renamed': (e) => sql`
    update u2f_tokens set name = ${e.payload.tokenName}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'u2f.used': (e) => sql`
    update u2f_tokens set sign_count = ${e.payload.signCount}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
};
