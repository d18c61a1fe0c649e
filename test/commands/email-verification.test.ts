// Address-verification codes on a real store, on PGlite and PostgreSQL: one
// code typed by many at once, from two command sets over two event stores (as
// two processes sharing the database), verifies exactly once; five wrong codes
// end the code; a user asks for its own code but never marks its own address
// verified; the registration's wait ends with the verification; mailed codes
// are limited per user, under requests at once and across address changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/access/caller.js';
import { createCommands } from '../../src/commands/index.js';
import type { Ports } from '../../src/commands/ports.js';
import { MAIL_LIMIT, MAX_FAILURES } from '../../src/domain/user/email-verification.js';
import { createAttemptBudgets } from '../../src/store/attempt-budgets.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createReadModel } from '../../src/store/read-model.js';
import { announcePostgresSkip, freshPglite, freshPostgres, knownOrgs, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('address-verification codes on PostgreSQL');

const ROUNDS = 4;
const CONCURRENT = 10;
const ORG = 'org-email';
const ADMIN: Caller = { userId: 'email-admin', orgId: ORG, tokenId: 'test', memberships: [{ scopeType: 'instance', scopeId: 'default', orgId: ORG, roles: ['IAM_OWNER'] }] };

function setup(fixture: FreshDatabase) {
  let n = 0;
  const budgets = createAttemptBudgets(fixture.database, Buffer.alloc(32, 7));
  const process = () => {
    const ports: Ports = {
      events: createEventStore(fixture.database),
      lookups: createReadModel(fixture.database),
      clock: { now: () => Date.now() },
      ids: { newId: () => `em-${Date.now()}-${++n}` },
      secrets: undefined as never,
      verifyRegistration: undefined as never,
      webauthn: undefined as never,
      totp: undefined as never,
      invite: () => ({ budgets }),
    };
    return createCommands(ports);
  };
  const events = createEventStore(fixture.database);
  return {
    a: process(),
    b: process(),
    events,
    readModel: createReadModel(fixture.database),
    async human(registered?: boolean): Promise<{ userId: string; email: string }> {
      const userId = `em-user-${Date.now()}-${++n}`;
      const email = `${userId}@example.com`;
      await events.append(
        [
          { aggregateType: 'user', aggregateId: userId, resourceOwner: ORG, creator: 'test', type: 'user.human.added', payload: { username: userId, givenName: 'G', familyName: 'F', displayName: 'G F', email } },
          ...(registered ? [{ aggregateType: 'user' as const, aggregateId: userId, resourceOwner: ORG, creator: userId, type: 'user.self.registered' as const, payload: { verificationRequired: true } }] : []),
        ],
        [{ aggregateType: 'user', aggregateId: userId, sequence: 0 }],
      );
      return { userId, email };
    },
  };
}

for (const backend of ['PGlite', 'PostgreSQL'] as const) {
  describe.skipIf(backend === 'PostgreSQL' && !postgresAvailable)(`address-verification codes on ${backend}`, () => {
    let fixture: FreshDatabase;
    let w: ReturnType<typeof setup>;
    beforeAll(async () => {
      fixture = backend === 'PGlite' ? await freshPglite() : await freshPostgres();
      await knownOrgs(fixture.database, ORG);
      w = setup(fixture);
    }, 60_000);
    afterAll(async () => fixture?.cleanup());

    it(`one code typed by ${CONCURRENT} at once (half through each of two processes), ${ROUNDS} rounds: exactly one verifies`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { userId, email } = await w.human();
        const { code } = await w.a.setEmail({ caller: ADMIN }, { userId, email, verification: { kind: 'return' } });
        const results = await Promise.all(
          Array.from({ length: CONCURRENT }, (_, i) => (i % 2 === 0 ? w.a : w.b).useEmailCode({ userId, code: code!, actor: userId }, { address: `192.0.2.${round * CONCURRENT + i + 1}` })),
        );
        expect(results.filter((r) => r.ok), JSON.stringify(results)).toHaveLength(1);
        const history = await w.events.load('user', userId);
        expect(history.filter((e) => e.type === 'user.email.verified')).toHaveLength(1);
        // The others find the code spent, or the user's budget (five free) stops them before they try.
        expect(results.filter((r) => !r.ok).every((r) => !r.ok && (r.reason === 'EMAIL_CODE_WRONG' || r.reason === 'EMAIL_CODE_SLOW_DOWN'))).toBe(true);
        expect(history.filter((e) => e.type === 'user.email.code.check.failed').length).toBeLessThanOrEqual(CONCURRENT - 1);
        expect((await w.readModel.userFacts(userId))?.emailVerified).toBe(true);
      }
    }, 60_000);

    it(`${MAX_FAILURES} wrong codes end the code: the right one then does nothing`, async () => {
      const { userId, email } = await w.human();
      const { code } = await w.a.setEmail({ caller: ADMIN }, { userId, email, verification: { kind: 'return' } });
      const wrong = code === 'aaaa-aaaa' ? 'bbbb-bbbb' : 'aaaa-aaaa';
      for (let i = 0; i < MAX_FAILURES; i++) expect((await w.a.useEmailCode({ userId, code: wrong, actor: userId }, { address: `198.51.100.${i + 1}` })).ok).toBe(false);
      expect(await w.b.useEmailCode({ userId, code: code!, actor: userId }, { address: '198.51.100.99' })).toMatchObject({ ok: false });
      expect((await w.readModel.userFacts(userId))?.emailVerified).toBe(false);
    }, 30_000);

    it(`mailed codes: ${CONCURRENT} resends at once through two processes mail exactly ${MAIL_LIMIT}; then another address changes nothing; returned codes are not mail`, async () => {
      const { userId, email } = await w.human();
      const outcomes = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          (i % 2 ? w.a : w.b).resendEmailCode({ caller: ADMIN }, { userId, verification: { kind: 'send' } }).then(
            () => 'mailed',
            (e: { reason?: string; metadata?: Record<string, string> }) => `${e.reason} ${Number(e.metadata?.retryAfterSeconds) > 0 ? 'with a wait' : 'without a wait'}`,
          ),
        ),
      );
      expect(outcomes.filter((o) => o === 'mailed')).toHaveLength(MAIL_LIMIT);
      expect(new Set(outcomes.filter((o) => o !== 'mailed'))).toEqual(new Set(['EMAIL_CODE_MAIL_LIMIT with a wait']));
      const mailed = (await w.events.load('user', userId)).filter((e) => e.type === 'user.email.code.added');
      expect(mailed).toHaveLength(MAIL_LIMIT);
      // Setting the address again (or another one) to mail it once more: refused before anything changes.
      await expect(w.a.setEmail({ caller: ADMIN }, { userId, email: `other-${email}`, verification: { kind: 'send' } })).rejects.toMatchObject({ reason: 'EMAIL_CODE_MAIL_LIMIT' });
      expect((await w.readModel.userFacts(userId))?.email).toBe(email);
      // A code answered to the caller is no mail.
      expect((await w.b.resendEmailCode({ caller: ADMIN }, { userId, verification: { kind: 'return' } })).code).toMatch(/^[a-z0-9]{4}-[a-z0-9]{4}$/);
    }, 30_000);

    it('a user asks for its own code and types it back, but never marks its own address verified, whatever its roles', async () => {
      const { userId, email } = await w.human(true);
      const self: Caller = { userId, orgId: ORG, tokenId: 'self', memberships: [{ scopeType: 'instance', scopeId: 'default', orgId: ORG, roles: ['IAM_OWNER'] }] };
      expect(await w.a.setEmail({ caller: self }, { userId, email, verification: { kind: 'verified' } }).catch((e) => e.reason)).toBe('EMAIL_SELF_VERIFICATION');
      expect(await w.a.resendEmailCode({ caller: { ...self, memberships: [] } }, { userId, verification: { kind: 'verified' } as never }).catch((e) => e.reason)).toBe('EMAIL_SELF_VERIFICATION');
      const { code } = await w.a.resendEmailCode({ caller: { ...self, memberships: [] } }, { userId, verification: { kind: 'return' } });
      // A self-registered user waiting for its address: the verification ends the wait.
      const row = async () => (await fixture.database.sql.query<{ registration_unverified: boolean; email_verified: boolean }>({ text: 'select registration_unverified, email_verified from users where id = $1', params: [userId] }))[0];
      expect(await row()).toEqual({ registration_unverified: true, email_verified: false });
      await w.a.verifyEmail({ caller: { ...self, memberships: [] } }, { userId, verificationCode: code! });
      expect(await row()).toEqual({ registration_unverified: false, email_verified: true });
    }, 30_000);
  });
}
