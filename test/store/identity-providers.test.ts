// Identity providers at rest: the settings as a read model of their events
// (never the secret), the client secret sealed and bound to its provider, the
// links one row per (provider, subject); a removed provider takes its secret
// and links with it, a removed user its links. Migration 0025, on PGlite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/events/index.js';
import { linkIdOf } from '../../src/domain/idp/link-decider.js';
import { DEFAULT_OPTIONS, DEFAULT_TRUST } from '../../src/domain/idp/provider.js';
import { idpSealing, idpSecretKey } from '../../src/server/oidc/keys.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createIdpSecrets } from '../../src/store/idp-secrets.js';
import { sql } from '../../src/store/sql.js';
import { freshPglite, TEST_MASTER_KEY, type FreshDatabase } from '../support/databases.js';

let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshPglite();
});
afterAll(async () => fresh?.cleanup());

const append = async (event: NewEvent, sequence = 0) => createEventStore(fresh.database).append([event], [{ aggregateType: event.aggregateType, aggregateId: event.aggregateId, sequence }]);
const rows = <T>(q: ReturnType<typeof sql>) => fresh.database.sql.query<T>(q);
const settings = { kind: 'oidc' as const, name: 'Corp', issuer: 'https://idp.example.com', clientId: 'c', scopes: ['openid'], options: DEFAULT_OPTIONS, trust: DEFAULT_TRUST };

describe('identity providers at rest', () => {
  it('keeps the settings, seals the secret bound to its provider, and links one user per (provider, subject)', async () => {
    const secrets = createIdpSecrets(fresh.database, idpSealing(idpSecretKey(Buffer.from(TEST_MASTER_KEY))));
    await secrets.put('idp-1', 'the-client-secret-1');
    await secrets.put('idp-2', 'the-client-secret-2');
    await append({ aggregateType: 'idp', aggregateId: 'idp-1', type: 'idp.added', payload: { orgId: 'org-1', settings }, resourceOwner: 'org-1', creator: 't' });
    await append({ aggregateType: 'idp', aggregateId: 'idp-2', type: 'idp.added', payload: { settings: { ...settings, name: 'Instance' } }, resourceOwner: 'instance', creator: 't' });
    expect(await rows(sql`select idp_id, org_id, kind, name from identity_providers order by idp_id`)).toEqual([
      { idp_id: 'idp-1', org_id: 'org-1', kind: 'oidc', name: 'Corp' },
      { idp_id: 'idp-2', org_id: null, kind: 'oidc', name: 'Instance' },
    ]);
    expect(JSON.stringify(await rows(sql`select * from identity_providers`))).not.toContain('the-client-secret');
    expect(JSON.stringify(await rows(sql`select * from events`))).not.toContain('the-client-secret');
    expect(await secrets.get('idp-1')).toBe('the-client-secret-1');
    expect(JSON.stringify(await rows(sql`select sealed from idp_secrets`))).not.toContain('the-client-secret');
    // A sealed secret copied into another provider's row does not open there.
    await fresh.database.sql.query(sql`update idp_secrets set sealed = (select sealed from idp_secrets where idp_id = 'idp-1') where idp_id = 'idp-2'`);
    await expect(secrets.get('idp-2')).rejects.toThrow(/cannot be decrypted/);

    const link = (userId: string, subject: string): NewEvent => ({ aggregateType: 'idplink', aggregateId: linkIdOf('idp-1', subject), type: 'idplink.added', payload: { idpId: 'idp-1', subject, userId, how: 'admin' }, resourceOwner: 'org-1', creator: 't' });
    await append(link('user-1', 'sub-a'));
    await append(link('user-2', 'sub-b'));
    // The same identity under another aggregate id (no decider would write it): the database's key refuses it too.
    await expect(append({ ...link('user-3', 'sub-a'), aggregateId: 'forged-id' })).rejects.toThrow();
    expect(await rows(sql`select user_id, subject from idp_links order by subject`)).toEqual([
      { user_id: 'user-1', subject: 'sub-a' },
      { user_id: 'user-2', subject: 'sub-b' },
    ]);

    await append({ aggregateType: 'user', aggregateId: 'user-2', type: 'user.removed', payload: {} as never, resourceOwner: 'org-1', creator: 't' }, 0);
    expect(await rows(sql`select user_id from idp_links`)).toEqual([{ user_id: 'user-1' }]);

    await append({ aggregateType: 'idp', aggregateId: 'idp-1', type: 'idp.removed', payload: {}, resourceOwner: 'org-1', creator: 't' }, 1);
    expect(await rows(sql`select idp_id from identity_providers`)).toEqual([{ idp_id: 'idp-2' }]);
    expect(await rows(sql`select 1 from idp_links`)).toEqual([]);
    expect(await secrets.has('idp-1')).toBe(false);
  });
});
