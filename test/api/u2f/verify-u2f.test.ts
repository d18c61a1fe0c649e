// RegisterU2F / VerifyU2FRegistration / ListU2FTokens / RemoveU2F with a software
// authenticator: the success path and every failure path of design §7, each a
// real credential changed in one place. None may answer 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { restFields, restReason } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { plainUser, startRegistration } from '../../support/u2f.js';

const ORIGIN = 'https://login.example';
let kh: TestKeyhold;
let user: { userId: string; token: string };

beforeAll(async () => {
  kh = await startTestKeyhold({
    env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example,other.example', KEYHOLD_WEBAUTHN_ORIGINS: `${ORIGIN},https://other.example` },
  });
  user = await plainUser(kh);
});
afterAll(async () => kh?.close());

const verifyRest = (userId: string, u2fId: string, body: Record<string, unknown>, token = user.token) =>
  kh.rest('POST', `/v2/users/${userId}/u2f/${u2fId}`, body, { authorization: `Bearer ${token}` });

async function freshRegistration() {
  const reg = await startRegistration(kh, user.userId, user.token);
  return reg;
}

describe('success', () => {
  it('verifies a packed self-attested key; details carry sequence, changeDate, resourceOwner only', async () => {
    const key = createSoftAuthenticator();
    const reg = await freshRegistration();
    expect(reg.rpId).toBe('login.example');
    expect(reg.options.authenticatorSelection.userVerification).toBe('discouraged');
    expect(reg.options.pubKeyCredParams.map((p: any) => p.alg)).toEqual(expect.arrayContaining([-7, -8, -257]));
    const credential = key.makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId, fmt: 'packed' });
    const res = await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: credential, tokenName: '  My key  ' });
    expect(res.status).toBe(200);
    expect(res.body.details.sequence).toBe('2');
    expect(res.body.details.changeDate).toMatch(/^\d{4}-/);
    expect(res.body.details.creationDate).toBeUndefined();
    expect(res.body.details.resourceOwner).toBe(kh.bootstrap.created && kh.bootstrap.orgId);

    const list = await kh.client(UserService, 'connect', user.token).listU2FTokens({ userId: user.userId });
    const token = list.result.find((t) => t.id === reg.u2fId)!;
    expect(token.name).toBe('My key');
    expect(token.format).toBe('packed');
    expect(token.aaguid).toBe('00000000-0000-0000-0000-000000000000');
    expect(token.credentialId).toBe(key.credentialId);
    expect(JSON.stringify(list, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(reg.challenge);

    // What design §7 says is stored.
    const [, verified] = await createEventStore(kh.database).load('u2f', reg.u2fId);
    expect(verified.type).toBe('u2f.verified');
    expect(verified.payload).toMatchObject({ credentialId: key.credentialId, algorithm: -7, format: 'packed', rpId: 'login.example', tokenName: 'My key', signCount: 0 });

    // Replay after success.
    const replay = await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: credential, tokenName: 'again' });
    expect(replay.status).toBe(400);
    expect(restReason(replay.body)).toBe('U2F_ALREADY_VERIFIED');

    // A new registration excludes the verified key.
    const next = await freshRegistration();
    expect(next.options.excludeCredentials.map((c: any) => c.id)).toContain(key.credentialId);
  });

  it('a failed verification leaves the registration pending: retry succeeds', async () => {
    const key = createSoftAuthenticator();
    const reg = await freshRegistration();
    const wrong = key.makeRegistration({ challenge: reg.challenge, origin: 'https://evil.example', rpId: reg.rpId });
    const first = await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: wrong, tokenName: 'k' });
    expect(restReason(first.body)).toBe('ORIGIN_NOT_ALLOWED');
    expect(JSON.stringify(first.body)).not.toContain('evil.example');
    const right = key.makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });
    expect((await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: right, tokenName: 'k' })).status).toBe(200);
  });

  it('a second RP ID is honoured through `domain`; an unknown domain is 400', async () => {
    const reg = await startRegistration(kh, user.userId, user.token, 'other.example');
    expect(reg.rpId).toBe('other.example');
    const key = createSoftAuthenticator();
    const cred = key.makeRegistration({ challenge: reg.challenge, origin: 'https://other.example', rpId: 'other.example' });
    expect((await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: cred, tokenName: 'k' })).status).toBe(200);
    const bad = await kh.rest('POST', `/v2/users/${user.userId}/u2f`, { domain: 'evil.example' });
    expect(bad.status).toBe(400);
    expect(restFields(bad.body)).toEqual(['domain']);
  });
});

describe('each failure path answers its own 4xx', () => {
  type Case = [string, (ctx: { challenge: string; rpId: string; other: string }) => unknown, number, string];
  const key = createSoftAuthenticator();
  const cases: Case[] = [
    ['another registration’s challenge', (c) => key.makeRegistration({ challenge: c.other, origin: ORIGIN, rpId: c.rpId }), 400, 'CHALLENGE_MISMATCH'],
    ['an origin not configured', (c) => key.makeRegistration({ challenge: c.challenge, origin: 'https://attacker.example', rpId: c.rpId }), 400, 'ORIGIN_NOT_ALLOWED'],
    ['a different RP ID', (c) => key.makeRegistration({ challenge: c.challenge, origin: ORIGIN, rpId: c.rpId, rpIdForHash: 'attacker.example' }), 400, 'RP_ID_MISMATCH'],
    [
      'a tampered signature',
      (c) => key.makeRegistration({ challenge: c.challenge, origin: ORIGIN, rpId: c.rpId, fmt: 'packed', tamper: { signature: (s) => { const t = Uint8Array.from(s); t[t.length - 1] ^= 0xff; return t; } } }),
      400,
      'ATTESTATION_INVALID',
    ],
    ['user presence missing', (c) => key.makeRegistration({ challenge: c.challenge, origin: ORIGIN, rpId: c.rpId, flags: { up: false } }), 400, 'USER_NOT_PRESENT'],
    ['an assertion instead of a registration', (c) => key.makeRegistration({ challenge: c.challenge, origin: ORIGIN, rpId: c.rpId, clientDataType: 'webauthn.get' }), 400, 'WRONG_CEREMONY'],
    [
      'standard base64 in clientDataJSON',
      (c) => {
        const cred: any = key.makeRegistration({ challenge: c.challenge, origin: ORIGIN, rpId: c.rpId });
        cred.response.clientDataJSON = Buffer.from(cred.response.clientDataJSON, 'base64url').toString('base64');
        return cred;
      },
      400,
      'CREDENTIAL_MALFORMED',
    ],
    [
      'id different from the attested credential id',
      (c) => {
        const cred: any = key.makeRegistration({ challenge: c.challenge, origin: ORIGIN, rpId: c.rpId });
        cred.id = cred.rawId = createSoftAuthenticator().credentialId;
        return cred;
      },
      400,
      'CREDENTIAL_MALFORMED',
    ],
  ];
  it.each(cases)('%s', async (_label, make, status, reason) => {
    const reg = await freshRegistration();
    const other = await freshRegistration();
    const res = await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: make({ challenge: reg.challenge, rpId: reg.rpId, other: other.challenge }), tokenName: 'k' });
    expect(res.status).toBe(status);
    expect(restReason(res.body)).toBe(reason);
    // Still pending: the list shows it unverified.
    const list = await kh.rest('GET', `/v2/users/${user.userId}/u2f`, undefined, { authorization: `Bearer ${user.token}` });
    expect(list.body.result.find((t: any) => t.id === reg.u2fId).state).toBe('U2F_STATE_PENDING');
  });

  it('publicKeyCredential of 54 and of 1048577 characters → 400 on that field (not 413)', async () => {
    const reg = await freshRegistration();
    for (const total of [54, 1_048_577]) {
      const credential = { a: 'x'.repeat(total - 8) };
      expect(JSON.stringify(credential)).toHaveLength(total);
      const res = await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: credential, tokenName: 'k' });
      expect(res.status).toBe(400);
      expect(restFields(res.body)).toEqual(['publicKeyCredential']);
    }
  });

  it('an empty tokenName → 400 on tokenName', async () => {
    const reg = await freshRegistration();
    const cred = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });
    const res = await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: cred, tokenName: '   ' });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['tokenName']);
  });

  it('unknown u2fId → 404 U2F_NOT_FOUND; unknown user → 404 USER_NOT_FOUND', async () => {
    const cred = createSoftAuthenticator().makeRegistration({ challenge: 'AAAA', origin: ORIGIN, rpId: 'login.example' });
    const noToken = await verifyRest(user.userId, '01aaaaaaaaaaaaaaaaaaaaaaaa', { publicKeyCredential: cred, tokenName: 'k' });
    expect(noToken.status).toBe(404);
    expect(restReason(noToken.body)).toBe('U2F_NOT_FOUND');
    const noUser = await kh.rest('POST', '/v2/users/01bbbbbbbbbbbbbbbbbbbbbbbb/u2f/01aaaaaaaaaaaaaaaaaaaaaaaa', { publicKeyCredential: cred, tokenName: 'k' });
    expect(noUser.status).toBe(404);
    expect(restReason(noUser.body)).toBe('USER_NOT_FOUND');
  });

  it("another user's token as a plain user → 403; an admin may verify it", async () => {
    const other = await plainUser(kh);
    const reg = await startRegistration(kh, other.userId, other.token);
    const cred = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });
    const denied = await verifyRest(other.userId, reg.u2fId, { publicKeyCredential: cred, tokenName: 'k' }, user.token);
    expect(denied.status).toBe(403);
    expect(restReason(denied.body)).toBe('PERMISSION_DENIED');
    // Someone else's u2fId under one's own user id is not found, not a way in.
    const crossed = await verifyRest(user.userId, reg.u2fId, { publicKeyCredential: cred, tokenName: 'k' });
    expect(crossed.status).toBe(404);
    expect((await verifyRest(other.userId, reg.u2fId, { publicKeyCredential: cred, tokenName: 'k' }, kh.adminToken)).status).toBe(200);
  });

  it('the same key registered twice → 409 CREDENTIAL_ALREADY_REGISTERED', async () => {
    const key = createSoftAuthenticator();
    const a = await freshRegistration();
    const b = await freshRegistration();
    expect((await verifyRest(user.userId, a.u2fId, { publicKeyCredential: key.makeRegistration({ challenge: a.challenge, origin: ORIGIN, rpId: a.rpId }), tokenName: 'a' })).status).toBe(200);
    const dup = await verifyRest(user.userId, b.u2fId, { publicKeyCredential: key.makeRegistration({ challenge: b.challenge, origin: ORIGIN, rpId: b.rpId }), tokenName: 'b' });
    expect(dup.status).toBe(409);
    expect(restReason(dup.body)).toBe('CREDENTIAL_ALREADY_REGISTERED');
  });

  it('RemoveU2F removes a key; it is gone from the list', async () => {
    const reg = await freshRegistration();
    const removed = await kh.rest('DELETE', `/v2/users/${user.userId}/u2f/${reg.u2fId}`, undefined, { authorization: `Bearer ${user.token}` });
    expect(removed.status).toBe(200);
    const list = await kh.rest('GET', `/v2/users/${user.userId}/u2f`, undefined, { authorization: `Bearer ${user.token}` });
    expect(list.body.result.some((t: any) => t.id === reg.u2fId)).toBe(false);
    const again = await kh.rest('DELETE', `/v2/users/${user.userId}/u2f/${reg.u2fId}`, undefined, { authorization: `Bearer ${user.token}` });
    expect(again.status).toBe(404);
  });
});

describe('concurrency and expiry', () => {
  it('20 concurrent verifies of one registration: exactly one 200', async () => {
    const reg = await freshRegistration();
    const cred = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });
    const results = await Promise.all(Array.from({ length: 20 }, () => verifyRest(user.userId, reg.u2fId, { publicKeyCredential: cred, tokenName: 'race' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBeLessThan(500);
      expect(['U2F_ALREADY_VERIFIED', 'CONCURRENT_MODIFICATION']).toContain(restReason(r.body));
    }
  });

  it('an expired registration → 400 U2F_REGISTRATION_EXPIRED', async () => {
    const short = await startTestKeyhold({ env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN, KEYHOLD_WEBAUTHN_TIMEOUT_MS: '1000' } });
    try {
      const me = (await short.rest('GET', '/auth/v1/users/me')).body.user.userId;
      const reg = await startRegistration(short, me);
      await new Promise((r) => setTimeout(r, 1200));
      const cred = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });
      const res = await short.rest('POST', `/v2/users/${me}/u2f/${reg.u2fId}`, { publicKeyCredential: cred, tokenName: 'late' });
      expect(res.status).toBe(400);
      expect(restReason(res.body)).toBe('U2F_REGISTRATION_EXPIRED');
    } finally {
      await short.close();
    }
  });
});
