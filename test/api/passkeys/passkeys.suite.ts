// Passkeys end to end on one database: registration (UV required, one
// credential id per token across users and kinds), the API over REST and
// gRPC with its error cases and cross-org access, the passkey login
// (usePasskey) with each refusal, and N concurrent uses of one assertion.
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { usePasskey, type UsePasskeyInput } from '../../../src/commands/passkeys/use-passkey.js';
import type { Ports } from '../../../src/commands/ports.js';
import { runCommand } from '../../../src/commands/run.js';
import { passkeyDecider } from '../../../src/domain/passkey/decider.js';
import { generatePersonalAccessToken, hashToken } from '../../../src/domain/identity/tokens.js';
import { hashRecoveryCode } from '../../../src/domain/user/recovery-codes.js';
import { encodeBase64Url } from '../../../src/domain/webauthn/base64url.js';
import { verifyRegistration } from '../../../src/domain/webauthn/verify-registration.js';
import { passkeyLoginOptions } from '../../../src/domain/webauthn/request-options.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { rpcError, restFields, restReason } from '../../support/errors.js';
import { addOrg, bearer, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { createSoftPasskey, type SoftPasskey } from '../../support/soft-passkey.js';
import { plainUser, startRegistration } from '../../support/u2f.js';

const ORIGIN = 'https://login.example';
const RP_ID = 'login.example';

export function passkeySuite(name: string, opts: { postgres?: boolean }) {
  if (opts.postgres) announcePostgresSkip(name);
  describe.skipIf(opts.postgres && !postgresAvailable)(name, () => {
    let kh: TestKeyhold;
    let ports: Ports;
    const challenge = () => encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));

    beforeAll(async () => {
      kh = await startTestKeyhold({ ...opts, env: { KEYHOLD_WEBAUTHN_RP_IDS: RP_ID, KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN } });
      // The login's ports: usePasskey reads and appends, nothing else.
      ports = { events: createEventStore(kh.database), lookups: kh.readModel, clock: { now: () => Date.now() }, webauthn: () => kh.webauthn } as unknown as Ports;
    });
    afterAll(async () => kh?.close());

    const users = (token: string) => kh.client(UserService, 'grpc', token);

    let humans = 0;
    /**
     * A human user without roles in the admin's org, with a bearer token of its own: passkeys are for
     * humans only, and a human signs in through the login, so the token is written straight into its
     * history here (the decider gives tokens to machines only) to call the API as that user.
     */
    async function humanUser(): Promise<{ userId: string; token: string }> {
      const { userId } = await users(kh.adminToken).addHumanUser({
        username: `pk-${process.pid}-${++humans}-${Date.now()}`,
        profile: { givenName: 'Pat', familyName: 'Key' },
        email: { email: 'pat@example.com' },
      });
      const store = createEventStore(kh.database);
      const history = await store.load('user', userId);
      const token = generatePersonalAccessToken();
      await store.append(
        [{ aggregateType: 'user', aggregateId: userId, resourceOwner: history[0]!.resourceOwner, creator: userId, type: 'user.pat.added', payload: { tokenId: `${Date.now()}${humans}`, tokenHash: hashToken(token), expiresAt: null } }],
        [{ aggregateType: 'user', aggregateId: userId, sequence: history.at(-1)!.sequence }],
      );
      return { userId, token };
    }

    async function register(userId: string, token: string) {
      const res = await users(token).registerPasskey({ userId });
      return { passkeyId: res.passkeyId, options: res.publicKeyCredentialCreationOptions as any };
    }

    /** A user with a ready passkey (verified by the user themself). */
    async function withPasskey(): Promise<{ user: { userId: string; token: string }; key: SoftPasskey; passkeyId: string; recoveryCodes: string[] }> {
      const user = await humanUser();
      const key = createSoftPasskey();
      const { passkeyId, options } = await register(user.userId, user.token);
      const res = await users(user.token).verifyPasskeyRegistration({ userId: user.userId, passkeyId, publicKeyCredential: key.register(options, ORIGIN) as never, passkeyName: 'Laptop' });
      return { user, key, passkeyId, recoveryCodes: res.recoveryCodes };
    }

    const login = (response: unknown, expectedChallenge: string, extra: Partial<UsePasskeyInput> = {}) =>
      usePasskey(ports, { response, expectedChallenge, clientId: 'app', ...extra });

    describe('registration', () => {
      it('asks for a resident, user-verified credential and stores it; the first strong factor brings recovery codes', async () => {
        const user = await humanUser();
        const { passkeyId, options } = await register(user.userId, user.token);
        expect(options.authenticatorSelection).toEqual({ residentKey: 'required', requireResidentKey: true, userVerification: 'required' });
        expect(options.rp.id).toBe(RP_ID);
        expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(user.userId);
        const key = createSoftPasskey();
        const res = await users(user.token).verifyPasskeyRegistration({ userId: user.userId, passkeyId, publicKeyCredential: key.register(options, ORIGIN) as never, passkeyName: ' Laptop ' });
        expect(res.recoveryCodes).toHaveLength(10);
        const list = await users(user.token).listPasskeys({ userId: user.userId });
        expect(list.result.map((k) => [k.id, k.name, k.state, k.credentialId])).toEqual([[passkeyId, 'Laptop', 2, key.credentialId]]);
        // The second brings none.
        const second = await register(user.userId, user.token);
        expect(second.options.excludeCredentials.map((c: any) => c.id)).toContain(key.credentialId);
        const again = await users(user.token).verifyPasskeyRegistration({ userId: user.userId, passkeyId: second.passkeyId, publicKeyCredential: createSoftPasskey().register(second.options, ORIGIN) as never, passkeyName: 'Phone' });
        expect(again.recoveryCodes).toEqual([]);
      });

      it('a security key after a passkey brings no recovery codes: the first strong factor already did', async () => {
        const { user, recoveryCodes } = await withPasskey();
        expect(recoveryCodes).toHaveLength(10);
        const reg = await startRegistration(kh, user.userId, user.token);
        const res = await users(user.token).verifyU2FRegistration({
          userId: user.userId,
          u2fId: reg.u2fId,
          publicKeyCredential: createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId }) as never,
          tokenName: 'key',
        });
        expect(res.recoveryCodes).toEqual([]);
      });

      it('the platform / cross-platform choice becomes authenticatorAttachment', async () => {
        const user = await humanUser();
        const res = await users(user.token).registerPasskey({ userId: user.userId, authenticator: 1 });
        expect((res.publicKeyCredentialCreationOptions as any).authenticatorSelection.authenticatorAttachment).toBe('platform');
      });

      it('refuses a credential without user verification (USER_NOT_VERIFIED); the registration stays pending and verifies with UV', async () => {
        const user = await humanUser();
        const { passkeyId, options } = await register(user.userId, user.token);
        const key = createSoftPasskey();
        const refused = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/${passkeyId}`, { publicKeyCredential: key.register(options, ORIGIN, { uv: false }), passkeyName: 'k' }, bearer(user.token));
        expect(refused.status).toBe(400);
        expect(restReason(refused.body)).toBe('USER_NOT_VERIFIED');
        expect((await users(user.token).listPasskeys({ userId: user.userId })).result[0]!.state).toBe(1);
        const ok = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/${passkeyId}`, { publicKeyCredential: key.register(options, ORIGIN), passkeyName: 'k' }, bearer(user.token));
        expect(ok.status).toBe(200);
      });

      it('refuses a credential id already registered: by the same user, by another user, as a security key', async () => {
        const first = await withPasskey();
        // The same authenticator credential again, for the same user.
        const again = await register(first.user.userId, first.user.token);
        const same = await rpcError(users(first.user.token).verifyPasskeyRegistration({ userId: first.user.userId, passkeyId: again.passkeyId, publicKeyCredential: first.key.register(again.options, ORIGIN) as never, passkeyName: 'dup' }));
        expect(same.reason).toBe('CREDENTIAL_ALREADY_REGISTERED');
        // For another user.
        const other = await humanUser();
        const theirs = await register(other.userId, other.token);
        const cross = await rpcError(users(other.token).verifyPasskeyRegistration({ userId: other.userId, passkeyId: theirs.passkeyId, publicKeyCredential: first.key.register(theirs.options, ORIGIN) as never, passkeyName: 'dup' }));
        expect(cross.reason).toBe('CREDENTIAL_ALREADY_REGISTERED');
        // A security key's credential id as a passkey, and a passkey's as a security key.
        const key = createSoftAuthenticator();
        const u2f = await startRegistration(kh, other.userId, other.token);
        await users(other.token).verifyU2FRegistration({ userId: other.userId, u2fId: u2f.u2fId, publicKeyCredential: key.makeRegistration({ challenge: u2f.challenge, origin: ORIGIN, rpId: u2f.rpId }) as never, tokenName: 'key' });
        const asPasskey = await register(other.userId, other.token);
        const credential = key.makeRegistration({ challenge: asPasskey.options.challenge, origin: ORIGIN, rpId: RP_ID, flags: { uv: true } });
        expect((await rpcError(users(other.token).verifyPasskeyRegistration({ userId: other.userId, passkeyId: asPasskey.passkeyId, publicKeyCredential: credential as never, passkeyName: 'dup' }))).reason).toBe('CREDENTIAL_ALREADY_REGISTERED');
        const asKey = await startRegistration(kh, first.user.userId, first.user.token);
        const keyCredential = first.key.key.makeRegistration({ challenge: asKey.challenge, origin: ORIGIN, rpId: asKey.rpId });
        expect((await rpcError(users(first.user.token).verifyU2FRegistration({ userId: first.user.userId, u2fId: asKey.u2fId, publicKeyCredential: keyCredential as never, tokenName: 'dup' }))).reason).toBe('CREDENTIAL_ALREADY_REGISTERED');
        // Removed, the credential id is free again.
        await users(first.user.token).removePasskey({ userId: first.user.userId, passkeyId: first.passkeyId });
        const free = await register(first.user.userId, first.user.token);
        await users(first.user.token).verifyPasskeyRegistration({ userId: first.user.userId, passkeyId: free.passkeyId, publicKeyCredential: first.key.register(free.options, ORIGIN) as never, passkeyName: 'back' });
      });

      it('keeps at most the configured number of registrations pending per user', async () => {
        const user = await humanUser();
        const started = [];
        for (let i = 0; i < kh.webauthn.maxPendingPerUser + 2; i++) started.push(await register(user.userId, user.token));
        const list = await users(user.token).listPasskeys({ userId: user.userId });
        expect(list.result).toHaveLength(kh.webauthn.maxPendingPerUser);
        const oldest = started[0]!;
        const replaced = await rpcError(users(user.token).verifyPasskeyRegistration({ userId: user.userId, passkeyId: oldest.passkeyId, publicKeyCredential: createSoftPasskey().register(oldest.options, ORIGIN) as never, passkeyName: 'k' }));
        expect(replaced.reason).toBe('PASSKEY_REGISTRATION_REPLACED');
      });
    });

    describe('the API', () => {
      it('REST: register, verify, list (_search), remove; bad input names the field, nothing changed', async () => {
        const user = await humanUser();
        const reg = await kh.rest('POST', `/v2/users/${user.userId}/passkeys`, {}, bearer(user.token));
        expect(reg.status).toBe(200);
        const { passkeyId, publicKeyCredentialCreationOptions: options } = reg.body;
        const noName = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/${passkeyId}`, { publicKeyCredential: createSoftPasskey().register(options, ORIGIN) }, bearer(user.token));
        expect(noName.status).toBe(400);
        expect(restFields(noName.body)).toEqual(['passkeyName']);
        const badDomain = await kh.rest('POST', `/v2/users/${user.userId}/passkeys`, { domain: 'evil.example' }, bearer(user.token));
        expect(badDomain.status).toBe(400);
        expect(restFields(badDomain.body)).toEqual(['domain']);
        const ok = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/${passkeyId}`, { publicKeyCredential: createSoftPasskey().register(options, ORIGIN), passkeyName: 'Phone' }, bearer(user.token));
        expect(ok.status).toBe(200);
        const list = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/_search`, {}, bearer(user.token));
        expect(list.status).toBe(200);
        expect(list.body.result.filter((k: any) => k.state === 'AUTH_FACTOR_STATE_READY').map((k: any) => k.name)).toEqual(['Phone']);
        const gone = await kh.rest('DELETE', `/v2/users/${user.userId}/passkeys/${passkeyId}`, undefined, bearer(user.token));
        expect(gone.status).toBe(200);
        const again = await kh.rest('DELETE', `/v2/users/${user.userId}/passkeys/${passkeyId}`, undefined, bearer(user.token));
        expect(again.status).toBe(404);
        expect(restReason(again.body)).toBe('PASSKEY_NOT_FOUND');
      });

      it('VerifyPasskeyRegistration sent again with its Idempotency-Key answers the same recovery codes', async () => {
        const user = await humanUser();
        const { passkeyId, options } = await register(user.userId, user.token);
        const body = { publicKeyCredential: createSoftPasskey().register(options, ORIGIN), passkeyName: 'Laptop' };
        const headers = bearer(user.token, { 'idempotency-key': `passkey-${passkeyId}` });
        const first = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/${passkeyId}`, body, headers);
        const again = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/${passkeyId}`, body, headers);
        expect(first.status).toBe(200);
        expect(first.body.recoveryCodes).toHaveLength(10);
        expect(again.body).toEqual(first.body);
      });

      it('who may: the user, an org owner of its org; not another plain user, not an admin of another org', async () => {
        const { user, passkeyId } = await withPasskey();
        const stranger = await humanUser();
        expect((await rpcError(users(stranger.token).registerPasskey({ userId: user.userId }))).reason).toBe('PERMISSION_DENIED');
        expect((await rpcError(users(stranger.token).listPasskeys({ userId: user.userId }))).reason).toBe('PERMISSION_DENIED');
        expect((await rpcError(users(stranger.token).removePasskey({ userId: user.userId, passkeyId }))).reason).toBe('PERMISSION_DENIED');
        const orgB = await addOrg(kh, `B ${Date.now()}`);
        const ownerB = await machineCaller(kh, orgB, `owner-b-${Date.now()}`, ['ORG_OWNER']);
        // Another org's user is not even found (no telling it exists).
        for (const call of [
          () => users(ownerB.token).registerPasskey({ userId: user.userId }),
          () => users(ownerB.token).listPasskeys({ userId: user.userId }),
          () => users(ownerB.token).removePasskey({ userId: user.userId, passkeyId }),
        ]) {
          expect((await rpcError(call())).reason).toBe('USER_NOT_FOUND');
        }
        // The instance admin may (the user holds no role it lacks).
        expect((await users(kh.adminToken).listPasskeys({ userId: user.userId })).result.map((k) => k.id)).toContain(passkeyId);
        // Another user's passkey id under one's own user id: not found.
        const mine = await humanUser();
        expect((await rpcError(users(mine.token).removePasskey({ userId: mine.userId, passkeyId }))).reason).toBe('PASSKEY_NOT_FOUND');
      });
    });

    describe('usePasskey (the login)', () => {
      it('the right assertion → its user, amr hwk+user+mfa; the options are discoverable', async () => {
        const { user, key, passkeyId } = await withPasskey();
        const made = passkeyLoginOptions({ issuer: ORIGIN, rpIds: [RP_ID], origins: [ORIGIN], challenge: crypto.getRandomValues(new Uint8Array(32)), timeoutMs: 60_000 })!;
        expect(made.options).toMatchObject({ rpId: RP_ID, allowCredentials: [], userVerification: 'required' });
        const result = await login(key.assert(made.options.challenge, ORIGIN, RP_ID), made.options.challenge, { rpIds: made.rpIds });
        expect(result).toEqual({ ok: true, userId: user.userId, orgId: expect.any(String), passkeyId, amr: ['hwk', 'user', 'mfa'] });
        const events = await createEventStore(kh.database).load('passkey', passkeyId);
        expect(events.at(-1)!.type).toBe('passkey.used');
        // No usable RP id at this issuer: no options.
        expect(passkeyLoginOptions({ issuer: 'https://elsewhere.example', rpIds: [RP_ID], origins: [ORIGIN], challenge: new Uint8Array(32), timeoutMs: 1000 })).toBeUndefined();
      });

      it('refuses each wrong assertion with its reason', async () => {
        const a = await withPasskey();
        const b = await withPasskey();
        const handleOf = (userId: string) => Buffer.from(userId).toString('base64url');
        let c = challenge();
        // The userHandle names another user than the credential's (b's credential, a's handle).
        expect(await login(b.key.assert(c, ORIGIN, RP_ID, { userHandle: handleOf(a.user.userId) }), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_OTHER_USER' });
        // No user handle at all.
        expect(await login(a.key.assert(c, ORIGIN, RP_ID, { userHandle: null }), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_INVALID' });
        // Without user verification.
        expect(await login(a.key.assert(c, ORIGIN, RP_ID, { uv: false }), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_USER_NOT_VERIFIED' });
        // An answer to another challenge (a replayed assertion).
        expect(await login(a.key.assert(challenge(), ORIGIN, RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_REPLAYED' });
        // Another origin.
        expect(await login(a.key.assert(c, 'https://evil.example', RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_WRONG_ORIGIN' });
        // An unknown credential, and a security key's credential.
        expect(await login(createSoftPasskey().assert(c, ORIGIN, RP_ID, { userHandle: handleOf(a.user.userId) }), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' });
        // The right one succeeds; the same assertion again is refused.
        c = challenge();
        const right = a.key.assert(c, ORIGIN, RP_ID);
        expect((await login(right, c)).ok).toBe(true);
        expect(await login(right, c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_REPLAYED' });
      });

      it('a cloned authenticator (counter not increasing) is refused and recorded', async () => {
        const { key, passkeyId } = await withPasskey();
        let c = challenge();
        expect((await login(key.assert(c, ORIGIN, RP_ID, { signCount: 10 }), c)).ok).toBe(true);
        c = challenge();
        expect(await login(key.assert(c, ORIGIN, RP_ID, { signCount: 10 }), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_CLONED' });
        c = challenge();
        expect(await login(key.assert(c, ORIGIN, RP_ID, { signCount: 3 }), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_CLONED' });
        const events = await createEventStore(kh.database).load('passkey', passkeyId);
        expect(events.filter((e) => e.type === 'passkey.signcount.refused')).toHaveLength(2);
      });

      it('an inactive or locked user is refused; reactivated, it signs in', async () => {
        const { user, key } = await withPasskey();
        await users(kh.adminToken).deactivateUser({ userId: user.userId });
        let c = challenge();
        expect(await login(key.assert(c, ORIGIN, RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_USER_INACTIVE' });
        await users(kh.adminToken).reactivateUser({ userId: user.userId });
        await users(kh.adminToken).lockUser({ userId: user.userId });
        c = challenge();
        expect(await login(key.assert(c, ORIGIN, RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_USER_INACTIVE' });
        await users(kh.adminToken).unlockUser({ userId: user.userId });
        c = challenge();
        expect((await login(key.assert(c, ORIGIN, RP_ID), c)).ok).toBe(true);
      });

      it('a passkey the user\u2019s org forbids is refused before anything is recorded: no passkey.used, the counter unspent', async () => {
        const { user, key, passkeyId } = await withPasskey();
        const orgs: string[] = [];
        const forbidding = { passkeysAllowed: async (orgId: string) => (orgs.push(orgId), false) };
        const c = challenge();
        const answer = key.assert(c, ORIGIN, RP_ID, { signCount: 5 });
        expect(await login(answer, c, forbidding)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_NOT_ALLOWED' });
        // Asked for the org the user's events name.
        expect(orgs).toEqual([(await kh.rest('GET', `/v2/users/${user.userId}`)).body.details.resourceOwner]);
        expect((await createEventStore(kh.database).load('passkey', passkeyId)).map((e) => e.type)).not.toContain('passkey.used');
        // The same answer, once the policy allows passkeys, still signs in: neither its challenge nor its counter was spent.
        expect((await login(answer, c, { passkeysAllowed: async () => true })).ok).toBe(true);
      });

      it('a removed passkey signs nobody in', async () => {
        const { user, key, passkeyId } = await withPasskey();
        await users(user.token).removePasskey({ userId: user.userId, passkeyId });
        const c = challenge();
        expect(await login(key.assert(c, ORIGIN, RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' });
      });

      it('a removed user signs in with none of its passkeys; their credential ids are free again', async () => {
        const { user, key } = await withPasskey();
        await users(kh.adminToken).removeUser({ userId: user.userId });
        const c = challenge();
        expect(await login(key.assert(c, ORIGIN, RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' });
        const other = await humanUser();
        const reg = await register(other.userId, other.token);
        await users(other.token).verifyPasskeyRegistration({ userId: other.userId, passkeyId: reg.passkeyId, publicKeyCredential: key.register(reg.options, ORIGIN) as never, passkeyName: 'reused' });
      });

      it('the same assertion sent 8× at once, over several rounds: at most one accepted', async () => {
        const { key } = await withPasskey();
        for (let round = 0; round < 4; round++) {
          const c = challenge();
          const assertion = key.assert(c, ORIGIN, RP_ID);
          // Each through its own event store, as 8 processes sharing the database:
          // no in-process queue orders them, only the append's expected sequence.
          const results = await Promise.all(
            Array.from({ length: 8 }, () => usePasskey({ ...ports, events: createEventStore(kh.database) }, { response: assertion, expectedChallenge: c, clientId: 'app' })),
          );
          expect(results.filter((r) => r.ok), `round ${round}`).toHaveLength(1);
          for (const r of results) if (!r.ok) expect(['PASSKEY_LOGIN_REPLAYED', 'PASSKEY_LOGIN_CLONED']).toContain(r.reason);
        }
      });

      it('with a counter that stays 0 (most synced passkeys): still at most one per assertion', async () => {
        const { key } = await withPasskey();
        for (let round = 0; round < 3; round++) {
          const c = challenge();
          const assertion = key.assert(c, ORIGIN, RP_ID, { signCount: 0 });
          // Each through its own event store, as 8 processes: no in-process queue serialises them.
          const results = await Promise.all(
            Array.from({ length: 8 }, () => usePasskey({ ...ports, events: createEventStore(kh.database) }, { response: assertion, expectedChallenge: c, clientId: 'app' })),
          );
          expect(results.filter((r) => r.ok), `round ${round}`).toHaveLength(1);
        }
      });
    });

    describe('the first strong factor, verified twice at once', () => {
      it('of three first passkeys verified at once only one answers recovery codes, and those are the set that works (3 rounds)', async () => {
        for (let round = 0; round < 3; round++) {
          const user = await humanUser();
          const regs = await Promise.all([register(user.userId, user.token), register(user.userId, user.token), register(user.userId, user.token)]);
          const answers = await Promise.all(
            regs.map((r, i) => users(user.token).verifyPasskeyRegistration({ userId: user.userId, passkeyId: r.passkeyId, publicKeyCredential: createSoftPasskey().register(r.options, ORIGIN) as never, passkeyName: `k${i}` })),
          );
          const withCodes = answers.filter((a) => a.recoveryCodes.length > 0);
          expect(withCodes, `round ${round}`).toHaveLength(1);
          const generated = (await createEventStore(kh.database).load('user', user.userId)).filter((e) => e.type === 'user.recovery.codes.generated');
          expect(generated).toHaveLength(1);
          expect((generated[0]!.payload as { codeHashes: string[] }).codeHashes).toEqual(withCodes[0]!.recoveryCodes.map((c) => hashRecoveryCode(user.userId, c)));
        }
      });

      it('an authenticator app confirmed at the same moment as two first passkeys: one of the three answers recovery codes, the set that works (3 rounds)', async () => {
        for (let round = 0; round < 3; round++) {
          const user = await humanUser();
          const { secret } = await users(user.token).registerTOTP({ userId: user.userId });
          const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
          const regs = await Promise.all([register(user.userId, user.token), register(user.userId, user.token)]);
          const answers = await Promise.all([
            users(user.token).verifyTOTPRegistration({ userId: user.userId, code }),
            ...regs.map((r, i) => users(user.token).verifyPasskeyRegistration({ userId: user.userId, passkeyId: r.passkeyId, publicKeyCredential: createSoftPasskey().register(r.options, ORIGIN) as never, passkeyName: `k${i}` })),
          ]);
          const withCodes = answers.filter((a) => a.recoveryCodes.length > 0);
          expect(withCodes, `round ${round}`).toHaveLength(1);
          const generated = (await createEventStore(kh.database).load('user', user.userId)).filter((e) => e.type === 'user.recovery.codes.generated');
          expect(generated).toHaveLength(1);
          expect((generated[0]!.payload as { codeHashes: string[] }).codeHashes).toEqual(withCodes[0]!.recoveryCodes.map((c) => hashRecoveryCode(user.userId, c)));
        }
      });
    });

    describe('RemoveAllU2F beside passkeys', () => {
      it('removes the security keys only; the recovery codes stay while a passkey remains, and the passkey still signs in', async () => {
        const { user, key, recoveryCodes } = await withPasskey();
        expect(recoveryCodes).toHaveLength(10);
        const reg = await startRegistration(kh, user.userId, user.token);
        await users(user.token).verifyU2FRegistration({ userId: user.userId, u2fId: reg.u2fId, publicKeyCredential: createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId }) as never, tokenName: 'key' });
        await users(user.token).removeAllU2F({ userId: user.userId });
        const history = await createEventStore(kh.database).load('user', user.userId);
        expect(history.map((e) => e.type)).toContain('user.recovery.codes.generated');
        expect(history.map((e) => e.type)).not.toContain('user.recovery.codes.removed');
        expect((await users(user.token).listPasskeys({ userId: user.userId })).result).toHaveLength(1);
        const c = challenge();
        expect((await login(key.assert(c, ORIGIN, RP_ID), c)).ok).toBe(true);
      });
    });

    describe('usePasskey: signature first, single use, the user decided in the same run, humans only', () => {
      const handleOf = (userId: string) => Buffer.from(userId).toString('base64url');

      it('an older assertion of a counter-0 passkey never replays, whatever later logins did with their challenges', async () => {
        const { key } = await withPasskey();
        const c1 = challenge();
        const first = key.assert(c1, ORIGIN, RP_ID, { signCount: 0 });
        expect((await login(first, c1)).ok).toBe(true);
        const c2 = challenge();
        expect((await login(key.assert(c2, ORIGIN, RP_ID, { signCount: 0 }), c2)).ok).toBe(true);
        // A caller that did not spend c1: the passkey itself refuses it.
        expect(await login(first, c1)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_REPLAYED' });
      });

      it('nothing about owner or account state before the signature: an unsigned answer with another handle, or for an inactive user, is only refused as such', async () => {
        const a = await withPasskey();
        const b = await withPasskey();
        const c = challenge();
        // b's credential, a's handle, signed for another challenge: the signature speaks first.
        expect(await login(b.key.assert(challenge(), ORIGIN, RP_ID, { userHandle: handleOf(a.user.userId) }), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_REPLAYED' });
        await users(kh.adminToken).deactivateUser({ userId: b.user.userId });
        expect(await login(b.key.assert(challenge(), ORIGIN, RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_REPLAYED' });
        // Signed: then the state is told.
        expect(await login(b.key.assert(c, ORIGIN, RP_ID), c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_USER_INACTIVE' });
      });

      it("the user's state is decided on its events in the same run, not on a read of the read model", async () => {
        const { user, key } = await withPasskey();
        await users(kh.adminToken).lockUser({ userId: user.userId });
        // A read model that has not seen the lock yet (a lock committing between a read and the append).
        const stale = { ...ports, lookups: Object.assign(Object.create(kh.readModel), { userFacts: async (id: string) => ({ ...(await kh.readModel.userFacts(id))!, state: 'active' }) }) } as Ports;
        const c = challenge();
        expect(await usePasskey(stale, { response: key.assert(c, ORIGIN, RP_ID), expectedChallenge: c, clientId: 'app' })).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_USER_INACTIVE' });
      });

      it("a security key's credential is no passkey, signed or not", async () => {
        const user = await humanUser();
        const reg = await startRegistration(kh, user.userId, user.token);
        const securityKey = createSoftAuthenticator();
        await users(user.token).verifyU2FRegistration({ userId: user.userId, u2fId: reg.u2fId, publicKeyCredential: securityKey.makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId }) as never, tokenName: 'key' });
        const c = challenge();
        const assertion = securityKey.makeAssertion({ challenge: c, origin: ORIGIN, rpId: reg.rpId, signCount: 1, uv: true, userHandle: handleOf(user.userId) });
        expect(await login(assertion, c)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' });
      });

      it('machine users hold no passkeys: RegisterPasskey and VerifyPasskeyRegistration are USER_NOT_HUMAN; one made before signs nobody in', async () => {
        const machine = await plainUser(kh);
        expect((await rpcError(users(machine.token).registerPasskey({ userId: machine.userId }))).reason).toBe('USER_NOT_HUMAN');
        expect((await rpcError(users(kh.adminToken).registerPasskey({ userId: machine.userId }))).reason).toBe('USER_NOT_HUMAN');
        // A registration written before machines were refused, straight through the decider.
        const store = createEventStore(kh.database);
        const orgId = (await kh.readModel.userFacts(machine.userId))!.orgId;
        const passkeyId = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
        const c = challenge();
        await runCommand(store, { type: 'passkey', id: passkeyId }, passkeyDecider(passkeyId, machine.userId), { kind: 'start', orgId, rpId: RP_ID, challenge: c, expiresAt: new Date(Date.now() + 60_000).toISOString(), actor: machine.userId }, { creates: true });
        const key = createSoftPasskey();
        const answer = key.register({ challenge: c, rp: { id: RP_ID }, user: { id: handleOf(machine.userId) } }, ORIGIN);
        const refused = await rpcError(users(machine.token).verifyPasskeyRegistration({ userId: machine.userId, passkeyId, publicKeyCredential: answer as never, passkeyName: 'm' }));
        expect(refused.reason).toBe('USER_NOT_HUMAN');
        const checked = await verifyRegistration({ credential: answer, expectedChallenge: c, expectedOrigins: [ORIGIN], expectedRpId: RP_ID, requireUserVerification: true });
        if (!checked.ok) throw new Error(checked.reason);
        await runCommand(store, { type: 'passkey', id: passkeyId }, passkeyDecider(passkeyId, machine.userId), { kind: 'verify', credential: checked.credential, passkeyName: 'm', actor: machine.userId });
        const lc = challenge();
        expect(await login(key.assert(lc, ORIGIN, RP_ID), lc)).toEqual({ ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' });
      });
    });

    describe('the login policy', () => {
      it('round trip: defaults, changes, and a policy allowing neither refused naming both fields', async () => {
        const orgId = await addOrg(kh, `Policy ${Date.now()}`);
        const headers = bearer(kh.adminToken, { 'x-service-orgid': orgId });
        const got = await kh.rest('GET', '/management/v1/policies/login', undefined, headers);
        expect(got.body.policy).toMatchObject({ allowUsernamePassword: true, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED', isDefault: true });
        const neither = await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, passwordlessType: 'PASSWORDLESS_TYPE_NOT_ALLOWED', allowUsernamePassword: false }, headers);
        expect(neither.status).toBe(400);
        expect(restFields(neither.body).sort()).toEqual(['allowUsernamePassword', 'passwordlessType']);
        expect((await kh.rest('GET', '/management/v1/policies/login', undefined, headers)).body.policy.isDefault).toBe(true);
        // Only forceMfa: the first factors take their defaults.
        expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, headers)).status).toBe(200);
        const { loginFactorsOf } = await import('../../../src/queries/login-policy.js');
        expect(await loginFactorsOf(kh.readModel, orgId)).toEqual({ firstFactors: ['passkey', 'password'], passkeyAllowed: true, passwordAllowed: true, forceMfa: true });
        // An update names both first factors: a ZITADEL-shaped client omits NOT_ALLOWED and false,
        // so "switch passkeys off" must not be answered 200 with nothing changed.
        const omitted = await kh.rest('PUT', '/management/v1/policies/login', { forceMfa: true }, headers);
        expect(omitted.status).toBe(400);
        expect(restFields(omitted.body).sort()).toEqual(['allowUsernamePassword', 'passwordlessType']);
        const oneMissing = await kh.rest('PUT', '/management/v1/policies/login', { forceMfa: true, allowUsernamePassword: false }, headers);
        expect(restFields(oneMissing.body)).toEqual(['passwordlessType']);
        const grpcMissing = await rpcError(kh.client(ManagementService, 'grpc', kh.adminToken, { 'x-service-orgid': orgId }).updateCustomLoginPolicy({ forceMfa: false, allowUsernamePassword: true }));
        expect(grpcMissing.reason).toBe('INVALID_REQUEST');
        expect(await loginFactorsOf(kh.readModel, orgId)).toMatchObject({ passkeyAllowed: true, passwordAllowed: true, forceMfa: true });
        // Passkeys only.
        expect((await kh.rest('PUT', '/management/v1/policies/login', { forceMfa: true, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED', allowUsernamePassword: false }, headers)).status).toBe(200);
        expect(await loginFactorsOf(kh.readModel, orgId)).toEqual({ firstFactors: ['passkey'], passkeyAllowed: true, passwordAllowed: false, forceMfa: true });
        // Then passkeys off too: refused, nothing changed.
        const off = await kh.rest('PUT', '/management/v1/policies/login', { forceMfa: true, passwordlessType: 'PASSWORDLESS_TYPE_NOT_ALLOWED', allowUsernamePassword: false }, headers);
        expect(off.status).toBe(400);
        expect(restFields(off.body).sort()).toEqual(['allowUsernamePassword', 'passwordlessType']);
        // Password only, over gRPC.
        const { PasswordlessType } = await import('../../../gen/keyhold/management/v1/management_pb.js');
        await kh.client(ManagementService, 'grpc', kh.adminToken, { 'x-service-orgid': orgId }).updateCustomLoginPolicy({ forceMfa: false, passwordlessType: PasswordlessType.NOT_ALLOWED, allowUsernamePassword: true });
        const policy = (await kh.client(ManagementService, 'grpc', kh.adminToken, { 'x-service-orgid': orgId }).getLoginPolicy({})).policy!;
        expect([policy.passwordlessType, policy.allowUsernamePassword, policy.forceMfa]).toEqual([PasswordlessType.NOT_ALLOWED, true, false]);
        expect((await loginFactorsOf(kh.readModel, orgId)).firstFactors).toEqual(['password']);
      });
    });
  });
}
