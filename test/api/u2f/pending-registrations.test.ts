// Pending security-key registrations are bounded: any authenticated
// user may start registrations for itself, so a user holds at most
// KEYHOLD_WEBAUTHN_MAX_PENDING (5) at once — a new one ends the oldest, which
// then answers U2F_REGISTRATION_REPLACED, also in the process that kept a copy
// of it. Expired ones are listed as EXPIRED, and a background sweep deletes
// their read-model rows later; their events stay, so verifying one still
// answers U2F_REGISTRATION_EXPIRED. Real Keyholds, REST and gRPC clients, real
// credentials; PGlite and (with TEST_DATABASE_URL) PostgreSQL.
import { Code } from '@connectrpc/connect';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { U2FState, UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { u2fTokens } from '../../../src/store/schema.js';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { restReason, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { plainUser, startRegistration } from '../../support/u2f.js';

const ORIGIN = 'https://login.example';
const WEBAUTHN = { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN };

const started: TestKeyhold[] = [];
afterAll(async () => {
  for (const kh of started.reverse()) await kh.close();
});
async function keyhold(postgres: boolean, env: Record<string, string> = {}) {
  const kh = await startTestKeyhold({ postgres, env: { ...WEBAUTHN, ...env } });
  started.push(kh);
  return kh;
}

const verifyRest = (kh: TestKeyhold, userId: string, u2fId: string, credential: unknown, token: string) =>
  kh.rest('POST', `/v2/users/${userId}/u2f/${u2fId}`, { publicKeyCredential: credential, tokenName: 'key' }, { authorization: `Bearer ${token}` });

const credentialFor = (reg: Awaited<ReturnType<typeof startRegistration>>) =>
  createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });

/** The user's rows in the read model, as the store holds them. */
const rowsOf = (kh: TestKeyhold, userId: string) => kh.database.db.select().from(u2fTokens).where(eq(u2fTokens.userId, userId));

announcePostgresSkip('pending security-key registrations: PostgreSQL');
for (const backend of ['pglite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable)(`pending registrations (${backend})`, () => {
    it('a user with no role: the sixth registration ends the oldest, which no longer verifies (not even from this process’s copy); five stay pending', async () => {
      const kh = await keyhold(backend === 'postgres');
      const user = await plainUser(kh);
      const regs = [];
      for (let i = 0; i < 6; i++) regs.push(await startRegistration(kh, user.userId, user.token));

      const list = await kh.client(UserService, 'grpc', user.token).listU2FTokens({ userId: user.userId });
      expect(list.result.map((t) => t.id)).toEqual(regs.slice(1).map((r) => r.u2fId));
      expect(list.result.every((t) => t.state === U2FState.U2F_STATE_PENDING)).toBe(true);

      // The oldest was registered by this very process, which kept a copy of it to verify without a load.
      const replaced = await verifyRest(kh, user.userId, regs[0].u2fId, credentialFor(regs[0]), user.token);
      expect(replaced.status).toBe(400);
      expect(restReason(replaced.body)).toBe('U2F_REGISTRATION_REPLACED');
      const overGrpc = await rpcError(
        kh.client(UserService, 'grpc', user.token).verifyU2FRegistration({
          userId: user.userId,
          u2fId: regs[0].u2fId,
          publicKeyCredential: credentialFor(regs[0]) as never,
          tokenName: 'key',
        }),
      );
      expect([overGrpc.code, overGrpc.reason]).toEqual([Code.FailedPrecondition, 'U2F_REGISTRATION_REPLACED']);
      // Its history says why.
      const history = await createEventStore(kh.database).load('u2f', regs[0].u2fId);
      expect(history.map((e) => [e.type, e.payload])).toEqual([
        ['u2f.registration.started', expect.anything()],
        ['u2f.registration.replaced', { userId: user.userId, by: regs[5].u2fId }],
      ]);

      // The newer ones work as before.
      const ok = await verifyRest(kh, user.userId, regs[5].u2fId, credentialFor(regs[5]), user.token);
      expect(ok.status).toBe(200);
      // Verified keys do not count: five more may be pending beside it.
      for (let i = 0; i < 5; i++) await startRegistration(kh, user.userId, user.token);
      const rows = await rowsOf(kh, user.userId);
      expect(rows.filter((r) => r.state === 'ready')).toHaveLength(1);
      expect(rows.filter((r) => r.state === 'pending')).toHaveLength(5);
    });

    it('hundreds of registrations at once leave five pending rows, and each call was answered', async () => {
      const kh = await keyhold(backend === 'postgres');
      const user = await plainUser(kh);
      const client = kh.client(UserService, 'grpc', user.token);
      const answers = await Promise.allSettled(Array.from({ length: 300 }, () => client.registerU2F({ userId: user.userId, domain: '' })));
      expect(answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason)).slice(0, 3)).toEqual([]);
      const rows = await rowsOf(kh, user.userId);
      expect(rows).toHaveLength(5);
      // Every other one was ended by an event (the histories stay whole).
      const ids = answers.map((a) => (a as PromiseFulfilledResult<{ u2fId: string }>).value.u2fId);
      const kept = new Set(rows.map((r) => r.id));
      expect(ids.filter((id) => kept.has(id))).toHaveLength(5);
      const store = createEventStore(kh.database);
      for (const id of ids.filter((i) => !kept.has(i)).slice(0, 20)) {
        expect((await store.load('u2f', id)).map((e) => e.type)).toEqual(['u2f.registration.started', 'u2f.registration.replaced']);
      }
    }, 60_000);

    it('an expired registration is listed as EXPIRED, its row is swept later, and verifying it still answers U2F_REGISTRATION_EXPIRED from its events', async () => {
      const env = { KEYHOLD_WEBAUTHN_TIMEOUT_MS: '1000', KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS: '1500' };
      const kh = await keyhold(backend === 'postgres', env);
      const user = await plainUser(kh);
      const reg = await startRegistration(kh, user.userId, user.token);
      const pendingNow = await kh.rest('GET', `/v2/users/${user.userId}/u2f`, undefined, { authorization: `Bearer ${user.token}` });
      expect(pendingNow.body.result.map((t: any) => t.state)).toEqual(['U2F_STATE_PENDING']);

      await new Promise((r) => setTimeout(r, 1_100));
      const expired = await kh.rest('GET', `/v2/users/${user.userId}/u2f`, undefined, { authorization: `Bearer ${user.token}` });
      expect(expired.body.result).toEqual([expect.objectContaining({ id: reg.u2fId, state: 'U2F_STATE_EXPIRED', expirationDate: expect.any(String) })]);

      // The sweep runs by itself (every KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS here): the row goes, the events stay.
      const deadline = Date.now() + 10_000;
      while ((await rowsOf(kh, user.userId)).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(await rowsOf(kh, user.userId)).toEqual([]);
      const gone = await kh.rest('GET', `/v2/users/${user.userId}/u2f`, undefined, { authorization: `Bearer ${user.token}` });
      expect(gone.body.result ?? []).toEqual([]);
      expect((await createEventStore(kh.database).load('u2f', reg.u2fId)).map((e) => e.type)).toEqual(['u2f.registration.started']);

      const late = await verifyRest(kh, user.userId, reg.u2fId, credentialFor(reg), user.token);
      expect([late.status, restReason(late.body)]).toEqual([400, 'U2F_REGISTRATION_EXPIRED']);
      expect(await kh.housekeeping.sweep()).toBe(0);
    }, 30_000);
  });
}

describe('after a restart (no copy in memory)', () => {
  it('a swept registration answers U2F_REGISTRATION_EXPIRED from its events alone', async () => {
    const env = { KEYHOLD_WEBAUTHN_TIMEOUT_MS: '1000', KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS: '0' };
    const first = await keyhold(false, env);
    const user = await plainUser(first);
    const reg = await startRegistration(first, user.userId, user.token);
    await new Promise((r) => setTimeout(r, 1_100));
    await first.housekeeping.sweep(); // or the timer did
    expect(await rowsOf(first, user.userId)).toEqual([]);
    await first.stop();

    const second = await keyhold(false, { ...env, KEYHOLD_DATA_DIR: first.dataDir });
    expect(await rowsOf(second, user.userId)).toEqual([]);
    const late = await verifyRest(second, user.userId, reg.u2fId, credentialFor(reg), user.token);
    expect([late.status, restReason(late.body)]).toEqual([400, 'U2F_REGISTRATION_EXPIRED']);
  }, 60_000);
});
