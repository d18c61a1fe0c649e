// Invitation codes on a real store, on PGlite and PostgreSQL: a code used by
// many at once — with and without the first password in the same append, from
// two command sets over two event stores (as two processes sharing the
// database) — is spent by exactly one; the expiry; the code never in an
// event or the read model; and self-registration's taken address and address budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/access/caller.js';
import { createCommands } from '../../src/commands/index.js';
import type { Ports } from '../../src/commands/ports.js';
import { INVITE_LIFETIME_MS } from '../../src/domain/invite/codes.js';
import { createAttemptBudgets } from '../../src/store/attempt-budgets.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createReadModel } from '../../src/store/read-model.js';
import { announcePostgresSkip, freshPglite, freshPostgres, knownOrgs, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('invitation codes on PostgreSQL');

const ROUNDS = 4;
const CONCURRENT = 10;
const ORG = 'org-invite';
// The maker of the codes: a stored user and org owner (a code works only while its maker could still make it).
const ADMIN: Caller = { userId: 'invite-admin', orgId: ORG, tokenId: 'test', memberships: [{ scopeType: 'org', scopeId: ORG, orgId: ORG, roles: ['ORG_OWNER'] }] };

function setup(fixture: FreshDatabase) {
  let now = 1_800_000_000_000;
  let n = 0;
  const budgets = createAttemptBudgets(fixture.database, Buffer.alloc(32, 9));
  /** One process's command set: its own event store (and so its own serialization of an aggregate's commands). */
  const process = () => {
    const ports: Ports = {
      events: createEventStore(fixture.database),
      lookups: createReadModel(fixture.database),
      clock: { now: () => now },
      ids: { newId: () => `inv-${Date.now()}-${++n}` },
      secrets: { passwordHash: async (p: string) => `$argon2id$v=19$m=1,t=1,p=1$test$${Buffer.from(p).toString('base64url')}` } as never,
      verifyRegistration: undefined as never,
      webauthn: undefined as never,
      totp: undefined as never,
      invite: () => ({ budgets }),
    };
    return createCommands(ports);
  };
  const a = process();
  const b = process();
  const events = createEventStore(fixture.database);
  return {
    a,
    b,
    events,
    readModel: createReadModel(fixture.database),
    setNow: (ms: number) => (now = ms),
    getNow: () => now,
    async human(id?: string): Promise<string> {
      const userId = id ?? `inv-user-${Date.now()}-${++n}`;
      await events.append(
        [{ aggregateType: 'user', aggregateId: userId, resourceOwner: ORG, creator: 'test', type: 'user.human.added', payload: { username: `u-${userId}`, givenName: 'G', familyName: 'F', displayName: 'G F', email: 'g@example.com' } }],
        [{ aggregateType: 'user', aggregateId: userId, sequence: 0 }],
      );
      return userId;
    },
    /** Appends to a stream after what it holds (as a command would). */
    async append(aggregateType: 'user' | 'org' | 'instance', aggregateId: string, type: string, payload: Record<string, unknown>): Promise<void> {
      const sequence = (await events.load(aggregateType, aggregateId)).length;
      await events.append(
        [{ aggregateType, aggregateId, resourceOwner: ORG, creator: 'test', type, payload } as never],
        [{ aggregateType, aggregateId, sequence }],
      );
    },
  };
}

for (const backend of ['PGlite', 'PostgreSQL'] as const) {
  describe.skipIf(backend === 'PostgreSQL' && !postgresAvailable)(`invitation codes on ${backend}`, () => {
    let fixture: FreshDatabase;
    let w: ReturnType<typeof setup>;
    beforeAll(async () => {
      fixture = backend === 'PGlite' ? await freshPglite() : await freshPostgres();
      await knownOrgs(fixture.database, ORG);
      w = setup(fixture);
      await w.human(ADMIN.userId);
      await w.append('org', ORG, 'org.member.added', { userId: ADMIN.userId, roles: ['ORG_OWNER'] });
    }, 60_000);
    afterAll(async () => fixture?.cleanup());

    it(`one code used by ${CONCURRENT} at once (half through each of two processes), ${ROUNDS} rounds, with and without a password: exactly one spends it`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const userId = await w.human();
        const { code } = await w.a.createInviteCode({ caller: ADMIN }, { userId, delivery: 'returned' });
        const withPassword = round % 2 === 0;
        const results = await Promise.all(
          Array.from({ length: CONCURRENT }, (_, i) => {
            const commands = i % 2 === 0 ? w.a : w.b;
            const client = { address: `192.0.2.${round * CONCURRENT + i + 1}` };
            return withPassword
              ? commands.acceptInvitePassword({ userId, code, password: `passphrase number ${i} of ${round}` }, client)
              : commands.useInviteCode({ userId, code, actor: userId }, client);
          }),
        );
        expect(results.filter((r) => r.ok), JSON.stringify(results)).toHaveLength(1);
        expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(Array(CONCURRENT - 1).fill('INVITE_CODE_WRONG'));
        const history = await w.events.load('user', userId);
        expect(history.filter((e) => e.type === 'user.invite.code.used')).toHaveLength(1);
        expect(history.filter((e) => e.type === 'user.invite.code.check.failed')).toHaveLength(CONCURRENT - 1);
        // The one password set is the winner's, in the same append as the code's use.
        const changed = history.filter((e) => e.type === 'user.password.changed');
        expect(changed).toHaveLength(withPassword ? 1 : 0);
        if (withPassword) {
          const used = history.find((e) => e.type === 'user.invite.code.used')!;
          expect(changed[0]!.sequence).toBe(used.sequence + 1);
        }
        const stored = JSON.stringify(history.map((e) => e.payload)) + JSON.stringify(await w.readModel.userFacts(userId));
        expect(stored).not.toContain(code);
        expect(stored).not.toContain(code.replaceAll('-', ''));
      }
    }, 60_000);

    it('self-registration: a taken address is USERNAME_TAKEN; every registration from an address counts, the sixth waits', async () => {
      const rules = { domains: [], verification: false };
      const address = { address: `198.18.${backend === 'PGlite' ? 1 : 2}.7` };
      const email = `self-${backend}-${Date.now()}@example.com`;
      const input = { orgId: ORG, givenName: 'Self', familyName: 'Reg', email, password: 'a long enough passphrase', rules };
      const first = await w.a.registerHumanUser(input, address);
      expect((await w.events.load('user', first.userId)).map((e) => e.type)).toEqual(['user.human.added', 'user.password.changed', 'user.self.registered']);
      expect(await w.a.registerHumanUser(input, address).catch((e) => e.reason)).toBe('USERNAME_TAKEN');
      for (let i = 0; i < 3; i++) await w.b.registerHumanUser({ ...input, email: `${i}-${email}` }, address);
      // Five registrations from this address (one of them refused as taken): the next one waits.
      expect(await w.a.registerHumanUser({ ...input, email: `late-${email}` }, address).catch((e) => e.reason)).toBe('REGISTRATION_SLOW_DOWN');
      expect(await w.a.registerHumanUser({ ...input, email: `other-${email}` }, { address: '198.18.9.9' }).then((r) => r.verificationRequired)).toBe(false);
    }, 30_000);

    it('a code made for a first credential does nothing once the user has a password: neither the password form nor the passkey route', async () => {
      const userId = await w.human();
      const { code, purpose } = await w.a.createInviteCode({ caller: ADMIN }, { userId, delivery: 'returned' });
      expect(purpose).toBe('credential');
      // The administrator sets a password meanwhile; the mailed link is still in the inbox.
      await w.append('user', userId, 'user.password.changed', { passwordHash: '$argon2id$set-by-admin', changeRequired: true });
      expect(await w.a.acceptInvitePassword({ userId, code, password: 'a takeover passphrase' }, { address: '198.51.100.20' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      expect(await w.b.useInviteCode({ userId, code, purpose: 'credential', actor: userId }, { address: '198.51.100.21' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      expect(await w.a.checkInviteCode({ userId, code }, { address: '198.51.100.22' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      expect((await w.readModel.passwordOf(userId))?.passwordHash).toBe('$argon2id$set-by-admin');
      expect((await w.events.load('user', userId)).filter((e) => e.type === 'user.invite.code.used')).toHaveLength(0);
    }, 30_000);

    it('a key invitation does nothing once the user has a second factor; an address change, a lock or a deactivation retires a code for good', async () => {
      const withPassword = async () => {
        const userId = await w.human();
        await w.append('user', userId, 'user.password.changed', { passwordHash: '$argon2id$own', changeRequired: false });
        return userId;
      };
      const key = await withPassword();
      const made = await w.a.createInviteCode({ caller: ADMIN }, { userId: key, delivery: 'returned' });
      expect(made.purpose).toBe('key');
      await w.append('user', key, 'user.totp.verified', { totpId: 'totp-1' });
      expect(await w.a.useInviteCode({ userId: key, code: made.code, purpose: 'key', actor: key }, { address: '198.51.100.30' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });

      const retirements: [string, Record<string, unknown>][] = [
        ['user.human.changed', { username: 'renamed', givenName: 'G', familyName: 'F', displayName: 'G F', email: 'elsewhere@example.com' }],
        ['user.locked', {}],
        ['user.deactivated', {}],
      ];
      for (const [i, [type, payload]] of retirements.entries()) {
        const userId = await w.human();
        const { code } = await w.a.createInviteCode({ caller: ADMIN }, { userId, delivery: 'returned' });
        await w.append('user', userId, type, payload);
        if (type === 'user.locked') await w.append('user', userId, 'user.unlocked', {});
        if (type === 'user.deactivated') await w.append('user', userId, 'user.reactivated', {});
        expect(await w.b.useInviteCode({ userId, code, actor: userId }, { address: `198.51.100.${40 + i}` }), type).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      }
      // The same change of name with the same address retires nothing.
      const kept = await w.human();
      const { code } = await w.a.createInviteCode({ caller: ADMIN }, { userId: kept, delivery: 'returned' });
      await w.append('user', kept, 'user.human.changed', { username: 'kept', givenName: 'K', familyName: 'F', displayName: 'K F', email: 'g@example.com' });
      expect((await w.b.useInviteCode({ userId: kept, code, actor: kept }, { address: '198.51.100.49' })).ok).toBe(true);
    }, 30_000);

    it('a code works only while its maker could still make it: a user promoted above the maker, or a maker deactivated, ends it', async () => {
      const promoted = await w.human();
      const first = await w.a.createInviteCode({ caller: ADMIN }, { userId: promoted, delivery: 'returned' });
      await w.append('instance', 'default', 'instance.member.added', { userId: promoted, roles: ['IAM_OWNER'] });
      expect(await w.a.acceptInvitePassword({ userId: promoted, code: first.code, password: 'a takeover passphrase' }, { address: '198.51.100.50' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      expect((await w.readModel.passwordOf(promoted))?.passwordHash).toBeFalsy();

      const maker = await w.human();
      await w.append('org', ORG, 'org.member.added', { userId: maker, roles: ['ORG_USER_MANAGER'] });
      const makerCaller: Caller = { userId: maker, orgId: ORG, tokenId: 'test', memberships: [{ scopeType: 'org', scopeId: ORG, orgId: ORG, roles: ['ORG_USER_MANAGER'] }] };
      const invited = await w.human();
      const second = await w.a.createInviteCode({ caller: makerCaller }, { userId: invited, delivery: 'returned' });
      await w.append('user', maker, 'user.deactivated', {});
      expect(await w.b.useInviteCode({ userId: invited, code: second.code, actor: invited }, { address: '198.51.100.51' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      await w.append('user', maker, 'user.reactivated', {});
      expect((await w.b.useInviteCode({ userId: invited, code: second.code, actor: invited }, { address: '198.51.100.52' })).ok).toBe(true);
    }, 30_000);

    it('a code expires after 72 hours; a later code replaces it; a wrong code counts for the user until the budget says wait', async () => {
      const userId = await w.human();
      const first = await w.a.createInviteCode({ caller: ADMIN }, { userId, delivery: 'returned' });
      w.setNow(w.getNow() + INVITE_LIFETIME_MS + 1);
      expect(await w.a.useInviteCode({ userId, code: first.code, actor: userId }, { address: '198.51.100.1' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      const second = await w.a.createInviteCode({ caller: ADMIN }, { userId, delivery: 'returned' });
      expect(second.expiresAt.getTime()).toBe(w.getNow() + INVITE_LIFETIME_MS);
      expect(await w.b.useInviteCode({ userId, code: first.code, actor: userId }, { address: '198.51.100.2' })).toEqual({ ok: false, reason: 'INVITE_CODE_WRONG' });
      expect((await w.b.useInviteCode({ userId, code: second.code, actor: userId }, { address: '198.51.100.3' })).ok).toBe(true);
      // Guessing at one user from many addresses: the user's bucket stops it (10 free).
      const target = await w.human();
      await w.a.createInviteCode({ caller: ADMIN }, { userId: target, delivery: 'returned' });
      const answers = [];
      for (let i = 0; i < 12; i++) answers.push(await w.a.useInviteCode({ userId: target, code: 'aaaaa-aaaaa-aaaaa-aaaa' + (i % 10), actor: target }, { address: `203.0.113.${i + 1}` }));
      expect(answers.slice(0, 10).every((r) => !r.ok && r.reason === 'INVITE_CODE_WRONG')).toBe(true);
      expect(answers.slice(10).every((r) => !r.ok && r.reason === 'INVITE_CODE_SLOW_DOWN')).toBe(true);
    }, 30_000);
  });
}
