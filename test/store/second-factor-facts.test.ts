// Whether a user holds a second factor, as the password check reads it with
// the hash (store/queries/users.ts findPasswordOf, `secondFactorReady`): the
// login skips reading the factors when it says none, so it must agree with
// the factors' own read (store/queries/second-factors.ts and the login's
// ready keys: a verified key with a credential, or a verified authenticator
// app) for every kind of user — or a user with a factor would sign in without it.
import { afterEach, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/events/index.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createReadModel } from '../../src/store/read-model.js';
import { announcePostgresSkip, freshPglite, freshPostgres, knownOrgs, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('second-factor facts on PostgreSQL');

let opened: FreshDatabase | undefined;
afterEach(async () => {
  await opened?.cleanup();
  opened = undefined;
});

const event = (aggregateType: 'user' | 'u2f', aggregateId: string, type: string, payload: object): NewEvent =>
  ({ aggregateType, aggregateId, type, payload, resourceOwner: 'org-a', creator: 'test' }) as never;

for (const [backend, fresh, skip] of [
  ['PGlite', freshPglite, false],
  ['PostgreSQL', freshPostgres, !postgresAvailable],
] as const) {
  it.skipIf(skip)(`${backend}: the password's facts say a second factor is held exactly when the factors' read finds a ready one`, async () => {
    opened = await fresh();
    const read = createReadModel(opened.database);
    const store = createEventStore(opened.database);
    await knownOrgs(opened.database, 'org-a');
    let sequence = new Map<string, number>();
    const append = async (...events: NewEvent[]) => {
      const { aggregateType, aggregateId } = events[0]!;
      const at = sequence.get(aggregateId) ?? 0;
      await store.append(events, [{ aggregateType, aggregateId, sequence: at }]);
      sequence = new Map(sequence).set(aggregateId, at + events.length);
    };
    const user = async (id: string) => append(event('user', id, 'user.human.added', { username: id, givenName: 'G', familyName: 'F', displayName: 'G F', email: `${id}@example.com` }));
    const keyStarted = (id: string, userId: string) =>
      append(event('u2f', id, 'u2f.registration.started', { userId, rpId: 'localhost', challenge: 'c', expiresAt: new Date(Date.now() + 60_000).toISOString() }));
    const keyVerified = (id: string, userId: string) =>
      append(
        event('u2f', id, 'u2f.verified', {
          userId, tokenName: 'key', credentialId: `cred-${id}`, publicKey: 'pk', algorithm: -7, format: 'none', aaguid: '00000000-0000-0000-0000-000000000000',
          signCount: 0, transports: [], backupEligible: false, backedUp: false, userVerified: false, rpId: 'localhost',
        }),
      );

    const cases: Record<string, { make: () => Promise<unknown>; held: boolean }> = {
      none: { make: async () => {}, held: false },
      'pending-key': { make: () => keyStarted('k-pending', 'pending-key'), held: false },
      'ready-key': { make: async () => (await keyStarted('k-ready', 'ready-key'), keyVerified('k-ready', 'ready-key')), held: true },
      'pending-app': { make: () => append(event('user', 'pending-app', 'user.totp.added', { totpId: 't-pending' })), held: false },
      'ready-app': { make: async () => (await append(event('user', 'ready-app', 'user.totp.added', { totpId: 't-ready' })), append(event('user', 'ready-app', 'user.totp.verified', { totpId: 't-ready' }))), held: true },
    };
    for (const [id, { make, held }] of Object.entries(cases)) {
      await user(id);
      await make();
      const facts = await read.passwordOf(id);
      const factors = await read.secondFactorsOf(id);
      const readyInRead = factors.keys.some((k) => k.state === 'ready' && Boolean(k.credentialId)) || factors.totpReady;
      expect([id, facts?.secondFactorReady], 'the password facts').toEqual([id, held]);
      expect([id, readyInRead], "the factors' own read").toEqual([id, held]);
    }
  });
}
