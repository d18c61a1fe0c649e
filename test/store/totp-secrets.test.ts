// Authenticator-app secrets at rest: sealed under the master key's TOTP key and
// bound to their row, so a sealed value copied into another user's row (by
// anyone who can write the table) does not open there.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpSealing, totpSecretKey } from '../../src/server/oidc/keys.js';
import { sql } from '../../src/store/sql.js';
import { createTotpSecrets } from '../../src/store/totp-secrets.js';
import { freshPglite, TEST_MASTER_KEY, type FreshDatabase } from '../support/databases.js';

let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshPglite();
});
afterAll(async () => fresh?.cleanup());

describe('TOTP secrets at rest', () => {
  it('open where they were put, and not in another row they are copied into', async () => {
    const secrets = createTotpSecrets(fresh.database, totpSealing(totpSecretKey(Buffer.from(TEST_MASTER_KEY))));
    const mine = randomBytes(20);
    const victims = randomBytes(20);
    await secrets.put('totp-attacker', 'user-attacker', mine);
    await secrets.put('totp-victim', 'user-victim', victims);
    expect(Buffer.from((await secrets.get('totp-victim'))!.secret)).toEqual(victims);

    // The stored text holds no form of the secret.
    const [row] = await fresh.database.sql.query<{ sealed: string }>(sql`select sealed from totp_secrets where totp_id = 'totp-victim'`);
    for (const form of ['hex', 'base64', 'base64url'] as const) expect(row!.sealed).not.toContain(victims.toString(form));

    // The attacker's own sealed secret, written into the victim's row, does not open as the victim's.
    await fresh.database.sql.query(sql`update totp_secrets set sealed = (select sealed from totp_secrets where totp_id = 'totp-attacker') where totp_id = 'totp-victim'`);
    await expect(secrets.get('totp-victim')).rejects.toThrow(/cannot be decrypted/);
    expect(Buffer.from((await secrets.get('totp-attacker'))!.secret)).toEqual(mine);
  });
});
