// The TOTP commands on a real store, on PostgreSQL and PGlite: the one-use
// rule under concurrency (the same valid code sent by 8+ concurrent logins,
// several rounds: exactly one accepted), the ±1 step window, the first second
// factor's recovery codes, and no plaintext secret in the database row or in
// any event.
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/access/caller.js';
import { createCommands } from '../../src/commands/index.js';
import { checkTotp } from '../../src/commands/login/check-totp.js';
import type { GuessBudgets, Ports, TotpPorts } from '../../src/commands/ports.js';
import type { UseTotpInput } from '../../src/commands/totp/totp.js';
import { hotp, timeStep } from '../../src/domain/totp/totp.js';
import { hasReadyTotp } from '../../src/queries/totp.js';
import { createAttemptBudgets } from '../../src/store/attempt-budgets.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createReadModel } from '../../src/store/read-model.js';
import { createTotpSecrets } from '../../src/store/totp-secrets.js';
import { totpSealing, totpSecretKey } from '../../src/server/oidc/keys.js';
import { announcePostgresSkip, freshPglite, freshPostgres, knownOrgs, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('TOTP commands on PostgreSQL');

const ROUNDS = 5;
const CONCURRENT = 10;
const ORG = 'org-totp';

function setup(fixture: FreshDatabase) {
  const events = createEventStore(fixture.database);
  const readModel = createReadModel(fixture.database);
  let now = 1_800_000_000_000;
  const key = totpSecretKey(Buffer.alloc(32, 7));
  let n = 0;
  const totp: TotpPorts = {
    issuer: 'login.example.com',
    secrets: createTotpSecrets(fixture.database, totpSealing(key)),
  };
  const budgets = createAttemptBudgets(fixture.database, Buffer.alloc(32, 9));
  const ports: Ports = {
    events,
    lookups: readModel,
    clock: { now: () => now },
    ids: { newId: () => `id-${process.pid}-${Date.now()}-${++n}` },
    secrets: undefined as never,
    verifyRegistration: undefined as never,
    webauthn: () => ({ rpIds: ['login.example.com'], rpName: 'x', origins: ['https://login.example.com'], attestation: 'none', timeoutMs: 60_000, maxPendingPerUser: 5 }),
    totp: () => totp,
    invite: () => ({ budgets }),
  };
  const commands = createCommands(ports);
  return {
    ports,
    totp,
    events,
    readModel,
    commands,
    budgets,
    /** The login's check of a code: its budgets reserved, then the use-totp command. */
    useTotp: (input: UseTotpInput) => checkTotp({ commands, budgets }, input),
    setNow: (ms: number) => (now = ms),
    getNow: () => now,
    async human(): Promise<Caller> {
      const userId = ports.ids.newId();
      await events.append(
        [{ aggregateType: 'user', aggregateId: userId, resourceOwner: ORG, creator: 'test', type: 'user.human.added', payload: { username: `u-${userId}`, givenName: 'G', familyName: 'F', displayName: 'G F', email: 'g@example.com' } }],
        [{ aggregateType: 'user', aggregateId: userId, sequence: 0 }],
      );
      return { userId, orgId: ORG, tokenId: 'test', memberships: [] };
    },
  };
}

type World = ReturnType<typeof setup>;

/** A ready TOTP of a new human user (self-registered), and its secret's bytes. */
async function readyUser(w: World) {
  const caller = await w.human();
  const reg = await w.commands.registerTotp({ caller }, { userId: caller.userId });
  const secret = Buffer.from(OTPAuth.Secret.fromBase32(reg.secret).bytes);
  const verified = await w.commands.verifyTotpRegistration({ caller }, { userId: caller.userId, code: hotp(secret, timeStep(w.getNow())) });
  return { caller, secret, reg, verified };
}

for (const backend of ['PGlite', 'PostgreSQL'] as const) {
  describe.skipIf(backend === 'PostgreSQL' && !postgresAvailable)(`TOTP commands on ${backend}`, () => {
    let fixture: FreshDatabase;
    let w: World;
    beforeAll(async () => {
      fixture = backend === 'PGlite' ? await freshPglite() : await freshPostgres();
      await knownOrgs(fixture.database, ORG);
      w = setup(fixture);
    }, 60_000);
    afterAll(async () => fixture?.cleanup());

    it('register → verify makes it ready; the user\u2019s first second factor brings 10 recovery codes; the query says ready', async () => {
      const { caller, reg, verified } = await readyUser(w);
      expect(reg.uri).toMatch(/^otpauth:\/\/totp\/login\.example\.com:u-id-/);
      expect(reg.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(verified.recoveryCodes).toHaveLength(10);
      expect(await hasReadyTotp(w.readModel, caller.userId)).toBe(true);
      const again = await w.commands.registerTotp({ caller }, { userId: caller.userId }).catch((e) => e.reason);
      expect(again).toBe('TOTP_ALREADY_READY');
    });

    it('a second registration replaces a pending one (the first secret is gone from the table)', async () => {
      const caller = await w.human();
      const first = await w.commands.registerTotp({ caller }, { userId: caller.userId });
      const second = await w.commands.registerTotp({ caller }, { userId: caller.userId });
      expect(second.secret).not.toBe(first.secret);
      const rows = await fixture.database.sql.query<{ totp_id: string }>({ text: 'select totp_id from totp_secrets where user_id = $1', params: [caller.userId] });
      expect(rows).toHaveLength(1);
      const oldCode = hotp(Buffer.from(OTPAuth.Secret.fromBase32(first.secret).bytes), timeStep(w.getNow()));
      const newCode = hotp(Buffer.from(OTPAuth.Secret.fromBase32(second.secret).bytes), timeStep(w.getNow()));
      if (oldCode !== newCode) {
        expect(await w.commands.verifyTotpRegistration({ caller }, { userId: caller.userId, code: oldCode }).catch((e) => e.reason)).toBe('TOTP_CODE_WRONG');
      }
      expect(await hasReadyTotp(w.readModel, caller.userId)).toBe(false);
    });

    it(`the same valid code from ${CONCURRENT} concurrent logins, ${ROUNDS} rounds: exactly one accepted each round, a replay refused`, async () => {
      // A user per round: the losers' refusals count in the user's guessing budget (as a replayed code should).
      for (let round = 0; round < ROUNDS; round++) {
        const { caller, secret } = await readyUser(w);
        // The next step: the verify spent the current one.
        w.setNow(w.getNow() + 30_000);
        const code = hotp(secret, timeStep(w.getNow()));
        const results = await Promise.all(
          Array.from({ length: CONCURRENT }, (_, i) =>
            w.useTotp({ userId: caller.userId, clientId: 'app', code, client: { address: '192.0.2.1', knownBrowser: `kb-${round}-${i}` } }),
          ),
        );
        expect(results.filter((r) => r.ok), JSON.stringify(results)).toHaveLength(1);
        expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(Array(CONCURRENT - 1).fill('TOTP_CODE_WRONG'));
        const replay = await w.useTotp({ userId: caller.userId, clientId: 'app', code, client: { address: '192.0.2.1', knownBrowser: `kb-${round}-replay` } });
        expect(replay).toEqual({ ok: false, reason: 'TOTP_CODE_WRONG' });
        const history = await w.events.load('user', caller.userId);
        expect(history.filter((e) => e.type === 'user.totp.used')).toHaveLength(1);
        expect(history.filter((e) => e.type === 'user.totp.check.failed')).toHaveLength(CONCURRENT);
      }
    }, 60_000);

    it('codes of step−1 and step+1 are accepted, ±2 refused; an older step after a newer one is refused', async () => {
      const { caller, secret } = await readyUser(w);
      const use = (code: string, kb: string) => w.useTotp({ userId: caller.userId, clientId: 'app', code, client: { address: '192.0.2.2', knownBrowser: kb } });
      w.setNow(w.getNow() + 10 * 30_000);
      const now = timeStep(w.getNow());
      const inWindow = new Set([now - 1, now, now + 1].map((s) => hotp(secret, s)));
      for (const s of [now - 2, now + 2]) {
        if (!inWindow.has(hotp(secret, s))) expect(await use(hotp(secret, s), `far-${s}`)).toEqual({ ok: false, reason: 'TOTP_CODE_WRONG' });
      }
      expect((await use(hotp(secret, now - 1), 'a')).ok).toBe(true);
      expect((await use(hotp(secret, now + 1), 'b')).ok).toBe(true);
      // now+1 was accepted: now (older) is refused — each step at most once, and never going back.
      expect(await use(hotp(secret, now), 'c')).toEqual({ ok: false, reason: 'TOTP_CODE_WRONG' });
    });

    it('a right code whose event cannot be written gives its budget place back uncounted: no streak is cleared by a login that did not happen', async () => {
      const { caller, secret } = await readyUser(w);
      const finished: string[] = [];
      const budgets: GuessBudgets = {
        async reserve(buckets) {
          const held = await w.budgets.reserve(buckets);
          return held.ok ? { ...held, finish: (o) => (finished.push(o), held.finish(o)) } : held;
        },
      };
      const failing = createCommands({
        ...w.ports,
        events: { ...w.events, append: async () => Promise.reject(new Error('the disk is gone')) },
      });
      const code = hotp(secret, timeStep(w.getNow()) + 1);
      await expect(checkTotp({ commands: failing, budgets }, { userId: caller.userId, clientId: 'app', code, client: { address: '203.0.113.7' } })).rejects.toThrow('the disk is gone');
      expect(finished).toEqual(['none']);
      // A wrong code counts even so.
      const wrong = hotp(secret, timeStep(w.getNow()) + 5);
      await expect(checkTotp({ commands: failing, budgets }, { userId: caller.userId, clientId: 'app', code: wrong, client: { address: '203.0.113.7' } })).rejects.toThrow('the disk is gone');
      expect(finished).toEqual(['none', 'failure']);
    });

    it('malformed input tries nothing; no TOTP is not registered; the budget slows a guesser down', async () => {
      const { caller } = await readyUser(w);
      const use = (code: string, address = '198.51.100.7') => w.useTotp({ userId: caller.userId, clientId: 'app', code, client: { address } });
      expect(await use('12a456')).toEqual({ ok: false, reason: 'TOTP_CODE_MALFORMED' });
      const none = await w.human();
      expect(await w.useTotp({ userId: none.userId, clientId: 'app', code: '123456', client: { address: '198.51.100.8' } })).toEqual({ ok: false, reason: 'TOTP_NOT_REGISTERED' });
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await use(String(i).padStart(6, '9')));
      expect(answers.some((a) => !a.ok && a.reason === 'TOTP_SLOW_DOWN')).toBe(true);
    });

    it('neither the secrets table nor any event holds the plaintext secret (base32, hex or base64)', async () => {
      const { caller, secret, reg } = await readyUser(w);
      await w.useTotp({ userId: caller.userId, clientId: 'app', code: '000000', client: { address: '192.0.2.9' } });
      const rows = await fixture.database.sql.query({ text: 'select * from totp_secrets where user_id = $1', params: [caller.userId] });
      const totpRow = await fixture.database.sql.query({ text: 'select * from user_totp where user_id = $1', params: [caller.userId] });
      const events = await w.events.load('user', caller.userId);
      const stored = JSON.stringify([rows, totpRow, events.map((e) => e.payload)]);
      expect(rows).toHaveLength(1);
      for (const form of [reg.secret, reg.secret.toLowerCase(), secret.toString('hex'), secret.toString('base64'), secret.toString('base64url')]) expect(stored).not.toContain(form);
      expect(events.filter((e) => e.type.startsWith('user.totp.')).map((e) => Object.keys(e.payload).sort().join(','))).toEqual(
        expect.arrayContaining(['totpId', 'clientId,totpId']),
      );
    });

    it('a secret sealed under another master key does not open (and the error names no secret)', async () => {
      const { reg } = await readyUser(w);
      const [row] = await fixture.database.sql.query<{ totp_id: string }>({ text: 'select totp_id from totp_secrets order by created_at desc limit 1', params: [] });
      const other = createTotpSecrets(fixture.database, totpSealing(totpSecretKey(Buffer.alloc(32, 8))));
      const err = await other.get(row!.totp_id).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toMatch(/KEYHOLD_MASTERKEY/);
      expect(String((err as Error).message)).not.toContain(reg.secret);
    });

    it('a removed user\u2019s TOTP and sealed secret go with it', async () => {
      const { caller } = await readyUser(w);
      const history = await w.events.load('user', caller.userId);
      await w.events.append(
        [{ aggregateType: 'user', aggregateId: caller.userId, resourceOwner: ORG, creator: 'test', type: 'user.removed', payload: {} }],
        [{ aggregateType: 'user', aggregateId: caller.userId, sequence: history.length }],
      );
      expect(await w.readModel.totpOf(caller.userId)).toBeUndefined();
      expect(await fixture.database.sql.query({ text: 'select 1 from totp_secrets where user_id = $1', params: [caller.userId] })).toHaveLength(0);
    });

    it('RemoveTOTP removes the TOTP and its sealed secret; removing again is TOTP_NOT_REGISTERED', async () => {
      const { caller } = await readyUser(w);
      await w.commands.removeTotp({ caller }, { userId: caller.userId });
      expect(await hasReadyTotp(w.readModel, caller.userId)).toBe(false);
      const rows = await fixture.database.sql.query({ text: 'select 1 from totp_secrets where user_id = $1', params: [caller.userId] });
      expect(rows).toHaveLength(0);
      expect(await w.commands.removeTotp({ caller }, { userId: caller.userId }).catch((e) => e.reason)).toBe('TOTP_NOT_REGISTERED');
    });
  });
}
