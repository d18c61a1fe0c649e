// TOTP secrets at rest (commands/ports.ts TotpSecretStore): one row per TOTP,
// the secret sealed (AES-256-GCM, a key derived from the master key: the
// caller passes the sealing), and the newest time step accepted. Not a read
// model: no event holds the secret. The user.totp.* projection
// (projections/user-totp.ts) deletes a replaced or removed TOTP's row.
//
// claimStep is the one-use rule: `update … set last_step = $n where
// last_step < $n returning`, so of N concurrent uses of one code (or a code
// of an older step after a newer one) exactly one updates the row.
import type { TotpSecretStore } from '../commands/ports.js';
import type { Database } from './database.js';
import { toStoreError } from './errors.js';
import { sql } from './sql.js';

/** Seals and opens a secret (the raw bytes, as base64url text), bound to its row — server/oidc/keys.ts totpSealing. */
export interface Sealing {
  seal(plain: string, boundTo: string): string;
  unseal(sealed: string, boundTo: string): string;
}

/** What a sealed secret is bound to: its row's TOTP and user, so it opens nowhere else. */
const rowOf = (totpId: string, userId: string) => `totp ${totpId} user ${userId}`;

const mapped =
  <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    f(...args).catch((err: unknown) => {
      throw toStoreError(err);
    });

export function createTotpSecrets({ sql: client }: Pick<Database, 'sql'>, sealing: Sealing): TotpSecretStore {
  return {
    put: mapped(async (totpId: string, userId: string, secret: Uint8Array) => {
      const sealed = sealing.seal(Buffer.from(secret).toString('base64url'), rowOf(totpId, userId));
      await client.query(sql`insert into totp_secrets (totp_id, user_id, sealed) values (${totpId}, ${userId}, ${sealed})`);
    }),
    get: mapped(async (totpId: string) => {
      const [row] = await client.query<{ sealed: string; user_id: string; last_step: string | number }>(sql`select sealed, user_id, last_step from totp_secrets where totp_id = ${totpId}`);
      if (!row) return undefined;
      return { secret: Buffer.from(sealing.unseal(row.sealed, rowOf(totpId, row.user_id)), 'base64url'), lastStep: Number(row.last_step) };
    }),
    claimStep: mapped(async (totpId: string, step: number) => {
      const rows = await client.query(sql`update totp_secrets set last_step = ${step} where totp_id = ${totpId} and last_step < ${step} returning totp_id`);
      return rows.length === 1;
    }),
    drop: mapped(async (totpId: string) => {
      await client.query(sql`delete from totp_secrets where totp_id = ${totpId}`);
    }),
  };
}
