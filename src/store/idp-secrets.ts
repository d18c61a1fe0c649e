// Identity providers' client secrets at rest (commands/ports.ts
// IdpSecretStore): one row per provider, the secret sealed (AES-256-GCM
// under a key derived from the master key, bound to the provider's id: a
// sealed value copied to another provider's row does not open). In no event;
// the idp.removed projection deletes the row with its provider.
import type { IdpSecretStore } from '../commands/ports.js';
import type { Database } from './database.js';
import { toStoreError } from './errors.js';
import type { Sealing } from './totp-secrets.js';
import { sql } from './sql.js';

const rowOf = (idpId: string) => `idp ${idpId}`;

export function createIdpSecrets({ sql: client }: Pick<Database, 'sql'>, sealing: Sealing): IdpSecretStore {
  const mapped = async <R>(run: () => Promise<R>): Promise<R> => {
    try {
      return await run();
    } catch (err) {
      throw toStoreError(err);
    }
  };
  return {
    put: (idpId, secret) =>
      mapped(async () => {
        const sealed = sealing.seal(secret, rowOf(idpId));
        await client.query(sql`insert into idp_secrets (idp_id, sealed) values (${idpId}, ${sealed}) on conflict (idp_id) do update set sealed = excluded.sealed, changed_at = now()`);
      }),
    get: (idpId) =>
      mapped(async () => {
        const [row] = await client.query<{ sealed: string }>(sql`select sealed from idp_secrets where idp_id = ${idpId}`);
        return row ? sealing.unseal(row.sealed, rowOf(idpId)) : undefined;
      }),
    has: (idpId) =>
      mapped(async () => (await client.query(sql`select 1 from idp_secrets where idp_id = ${idpId}`)).length === 1),
  };
}
