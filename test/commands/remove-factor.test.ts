// Removing factors while the org requires a second factor, on a real store
// (PGlite and PostgreSQL): the user's own removals of its last two factors at
// once — a key and a passkey, a key and the authenticator app — through two
// command sets over two event stores (as two processes sharing the database)
// leave exactly one factor, every round; so does a user's removal racing an
// administrator's (which is never refused). The refused ones are
// LAST_SECOND_FACTOR (or find their factor already gone), never a 500. Without
// the rule (no forceMfa) the user removes its last factor; a pending
// registration is no factor to keep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/access/caller.js';
import { createCommands } from '../../src/commands/index.js';
import type { Ports } from '../../src/commands/ports.js';
import { KeyholdError } from '../../src/domain/errors/keyhold-error.js';
import type { NewEvent } from '../../src/domain/events/index.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createReadModel } from '../../src/store/read-model.js';
import { announcePostgresSkip, freshPglite, freshPostgres, knownOrgs, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('removing one\u2019s own last factors at once on PostgreSQL');

const ROUNDS = 6;
const CONCURRENT = 8;
const ORG = 'org-factors';
const FREE_ORG = 'org-factors-free';
const ADMIN: Caller = { userId: 'factors-admin', orgId: ORG, tokenId: 'test', memberships: [{ scopeType: 'instance', scopeId: 'default', orgId: ORG, roles: ['IAM_OWNER'] }] };

const credential = (n: string) => ({
  credentialId: Buffer.from(`cred-${n}`).toString('base64url'),
  publicKey: 'pQECAyYgASFYIA',
  algorithm: -7,
  format: 'none',
  aaguid: '00000000-0000-0000-0000-000000000000',
  signCount: 0,
  transports: ['usb'],
  backupEligible: false,
  backedUp: false,
  rpId: 'login.example',
});

function setup(fixture: FreshDatabase) {
  let n = 0;
  const process = () => {
    const ports: Ports = {
      events: createEventStore(fixture.database),
      lookups: createReadModel(fixture.database),
      clock: { now: () => Date.now() },
      ids: { newId: () => `f-${Date.now()}-${++n}` },
      secrets: undefined as never,
      verifyRegistration: undefined as never,
      webauthn: undefined as never,
      totp: undefined as never,
      invite: undefined as never,
    };
    return createCommands(ports);
  };
  const events = createEventStore(fixture.database);
  const append = async (list: NewEvent[], aggregate: { type: 'user' | 'u2f' | 'passkey'; id: string }, sequence = 0) =>
    events.append(list, [{ aggregateType: aggregate.type, aggregateId: aggregate.id, sequence }]);
  let orgOf = ORG;
  const own = <T extends 'user' | 'u2f' | 'passkey'>(type: T, id: string) => ({ aggregateType: type, aggregateId: id, resourceOwner: orgOf, creator: 'test' });
  return {
    a: process(),
    b: process(),
    events,
    readModel: createReadModel(fixture.database),
    /** A human with the given factors, all ready. */
    async user(factors: { key?: boolean; passkey?: boolean; totp?: boolean; pendingKey?: boolean }, org = ORG) {
      orgOf = org;
      const userId = `f-user-${Date.now()}-${++n}`;
      const userEvents: NewEvent[] = [
        { ...own('user', userId), type: 'user.human.added', payload: { username: `u-${userId}`, givenName: 'G', familyName: 'F', displayName: 'G F', email: 'g@example.com' } },
      ];
      if (factors.totp) {
        userEvents.push({ ...own('user', userId), type: 'user.totp.added', payload: { totpId: `totp-${userId}` } });
        userEvents.push({ ...own('user', userId), type: 'user.totp.verified', payload: { totpId: `totp-${userId}`, step: 1 } });
      }
      await append(userEvents, { type: 'user', id: userId });
      const keyId = `key-${userId}`;
      const passkeyId = `pk-${userId}`;
      const started = { userId, rpId: 'login.example', challenge: 'c', expiresAt: new Date(Date.now() + 60_000).toISOString() };
      if (factors.key) {
        await append(
          [
            { ...own('u2f', keyId), type: 'u2f.registration.started', payload: started },
            { ...own('u2f', keyId), type: 'u2f.verified', payload: { userId, tokenName: 'key', userVerified: false, ...credential(keyId) } },
          ],
          { type: 'u2f', id: keyId },
        );
      }
      if (factors.pendingKey) {
        await append([{ ...own('u2f', keyId), type: 'u2f.registration.started', payload: started }], { type: 'u2f', id: keyId });
      }
      if (factors.passkey) {
        await append(
          [
            { ...own('passkey', passkeyId), type: 'passkey.registration.started', payload: started },
            { ...own('passkey', passkeyId), type: 'passkey.verified', payload: { userId, passkeyName: 'pk', ...credential(passkeyId) } },
          ],
          { type: 'passkey', id: passkeyId },
        );
      }
      return { userId, keyId, passkeyId };
    },
  };
}

const self = (userId: string, org = ORG): Caller => ({ userId, orgId: org, tokenId: 'account', memberships: [] });

for (const backend of ['PGlite', 'PostgreSQL'] as const) {
  describe.skipIf(backend === 'PostgreSQL' && !postgresAvailable)(`removing one's own factors under a second-factor rule on ${backend}`, () => {
    let fixture: FreshDatabase;
    let w: ReturnType<typeof setup>;
    beforeAll(async () => {
      fixture = backend === 'PGlite' ? await freshPglite() : await freshPostgres();
      await knownOrgs(fixture.database, ORG, FREE_ORG, 'default');
      w = setup(fixture);
      // ORG requires a second factor; FREE_ORG has the default policy (none).
      await w.events.append(
        [{ aggregateType: 'org', aggregateId: ORG, resourceOwner: ORG, creator: 'test', type: 'org.login.policy.added', payload: { forceMfa: true } }],
        [{ aggregateType: 'org', aggregateId: ORG, sequence: 0 }],
      );
      await w.events.append(
        [{ aggregateType: 'user', aggregateId: ADMIN.userId, resourceOwner: ORG, creator: 'test', type: 'user.machine.added', payload: { username: 'factors-admin', name: 'Admin', description: '' } }],
        [{ aggregateType: 'user', aggregateId: ADMIN.userId, sequence: 0 }],
      );
    }, 60_000);
    afterAll(async () => fixture?.cleanup());

    /** The user's ready factors as the read model has them. */
    const readyFactors = async (userId: string) => {
      const [keys, passkeys, totp] = await Promise.all([w.readModel.u2fTokensOf(userId), w.readModel.passkeysPage(userId, { offset: 0, limit: 100, asc: true }), w.readModel.totpOf(userId)]);
      return [...keys.filter((k) => k.state === 'ready').map((k) => k.id), ...passkeys.items.filter((k) => k.state === 'ready').map((k) => k.id), ...(totp?.state === 'ready' ? ['totp'] : [])];
    };

    /** The command a caller runs for the factor: RemoveU2F, RemovePasskey or RemoveTOTP. */
    const remove = (c: typeof w.a, caller: Caller, userId: string, factor: { kind: 'key' | 'passkey'; id: string } | { kind: 'totp' }) =>
      factor.kind === 'key'
        ? c.removeU2f({ caller }, { userId, u2fId: factor.id })
        : factor.kind === 'passkey'
          ? c.removePasskey({ caller }, { userId, passkeyId: factor.id })
          : c.removeTotp({ caller }, { userId });

    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'removed',
        (e: unknown) => (e instanceof KeyholdError ? e.reason : `unexpected: ${String(e)}`),
      );

    for (const pair of [
      ['key', 'passkey'],
      ['key', 'totp'],
    ] as const) {
      it(`${CONCURRENT} removals of the last ${pair[0]} and ${pair[1]} at once, through two processes × ${ROUNDS} rounds: exactly one factor stays`, async () => {
        const tally = new Map<string, number>();
        for (let round = 0; round < ROUNDS; round++) {
          const { userId, keyId, passkeyId } = await w.user({ key: true, passkey: pair[1] === 'passkey', totp: pair[1] === 'totp' });
          expect(await readyFactors(userId)).toHaveLength(2);
          const factorOf = (i: number) =>
            i % 2 === 0 ? { kind: 'key' as const, id: keyId } : pair[1] === 'passkey' ? { kind: 'passkey' as const, id: passkeyId } : { kind: 'totp' as const };
          const outcomes = await Promise.all(
            Array.from({ length: CONCURRENT }, (_, i) => outcome(remove(i % 4 < 2 ? w.a : w.b, self(userId), userId, factorOf(i)))),
          );
          for (const o of outcomes) tally.set(o, (tally.get(o) ?? 0) + 1);
          expect(outcomes.filter((o) => o === 'removed'), `round ${round}: ${outcomes.join(', ')}`).toHaveLength(1);
          expect(outcomes.filter((o) => o.startsWith('unexpected'))).toEqual([]);
          expect(await readyFactors(userId), `round ${round}`).toHaveLength(1);
          // The one that stays cannot go either.
          const left = (await readyFactors(userId))[0]!;
          const last = left === keyId ? { kind: 'key' as const, id: keyId } : left === passkeyId ? { kind: 'passkey' as const, id: passkeyId } : { kind: 'totp' as const };
          expect(await outcome(remove(w.b, self(userId), userId, last))).toBe('LAST_SECOND_FACTOR');
        }
        console.log(`[factors] ${backend}, ${pair.join(' + ')}: ${ROUNDS} rounds × ${CONCURRENT} removals: ${JSON.stringify(Object.fromEntries(tally))}`);
      }, 60_000);
    }

    it(`the user's removal racing an administrator's, through two processes × ${ROUNDS} rounds: the administrator's always goes, a factor stays unless the administrator took the last`, async () => {
      const tally = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        const { userId, keyId, passkeyId } = await w.user({ key: true, passkey: true });
        const [admin, user] = await Promise.all([
          outcome(remove(round % 2 ? w.a : w.b, ADMIN, userId, { kind: 'key', id: keyId })),
          outcome(remove(round % 2 ? w.b : w.a, self(userId), userId, { kind: 'passkey', id: passkeyId })),
        ]);
        expect(admin, `round ${round}`).toBe('removed');
        // Both are written on the user, in the order they were decided: the user's removal passed only if
        // it came first (then the administrator took the last factor, which it may); if it came second, it
        // was decided on a count without the key, and refused.
        const order = (await w.events.load('user', userId)).filter((e) => e.type === 'user.factor.removed').map((e) => (e.payload as { id: string }).id);
        if (user === 'removed') {
          expect(order, `round ${round}`).toEqual([passkeyId, keyId]);
          expect(await readyFactors(userId)).toEqual([]);
        } else {
          expect(user, `round ${round}`).toBe('LAST_SECOND_FACTOR');
          expect(order, `round ${round}`).toEqual([keyId]);
          expect(await readyFactors(userId)).toEqual([passkeyId]);
        }
        tally.set(user, (tally.get(user) ?? 0) + 1);
      }
      console.log(`[factors] ${backend}, the user's passkey racing an administrator's removal of the key, ${ROUNDS} rounds: ${JSON.stringify(Object.fromEntries(tally))}`);
    }, 60_000);

    it('with three factors, one goes and the guard is written on the user beside it; an administrator removes a last key; another user’s key is not found', async () => {
      const { userId, keyId, passkeyId } = await w.user({ key: true, passkey: true, totp: true });
      await remove(w.a, self(userId), userId, { kind: 'passkey', id: passkeyId });
      const history = await w.events.load('user', userId);
      expect(history.at(-1)).toMatchObject({ type: 'user.factor.removed', payload: { kind: 'passkey', id: passkeyId }, creator: userId });
      expect((await w.events.load('passkey', passkeyId)).at(-1)?.type).toBe('passkey.removed');
      await remove(w.a, self(userId), userId, { kind: 'totp' });
      expect(await readyFactors(userId)).toEqual([keyId]);
      await remove(w.b, ADMIN, userId, { kind: 'key', id: keyId });
      expect(await readyFactors(userId)).toEqual([]);
      const other = await w.user({ key: true, passkey: true });
      expect(await outcome(remove(w.a, self(userId), userId, { kind: 'key', id: other.keyId }))).toMatch(/NOT_FOUND/);
      expect(await readyFactors(other.userId)).toHaveLength(2);
    }, 60_000);

    it('without the rule the user removes its last factor; under it a pending registration is no factor to keep', async () => {
      const free = await w.user({ key: true }, FREE_ORG);
      expect(await outcome(remove(w.a, self(free.userId, FREE_ORG), free.userId, { kind: 'key', id: free.keyId }))).toBe('removed');
      const pending = await w.user({ pendingKey: true });
      expect(await outcome(remove(w.a, self(pending.userId), pending.userId, { kind: 'key', id: pending.keyId }))).toBe('removed');
    }, 60_000);
  });
}
