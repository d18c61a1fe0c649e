// Recovery codes for a lost key on the API, with real clients (Connect, gRPC, REST):
// the first key verified by its user answers 10 recovery codes (once);
// GenerateRecoveryCodes is self only; RemoveAllU2F removes every key and the
// codes under containment; ListU2FTokens counts the unused codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { restReason } from '../../support/errors.js';
import { bearer, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { plainUser, startRegistration } from '../../support/u2f.js';

const ORIGIN = 'https://login.example';
const CODE = /^[0-9a-hjkmnp-tv-z]{6}-[0-9a-hjkmnp-tv-z]{6}$/;
let kh: TestKeyhold;

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN } });
});
afterAll(async () => kh?.close());

/** Registers and verifies a key of `userId` as the caller `token` (REST), answering the response body. */
async function addKey(userId: string, token: string) {
  const reg = await startRegistration(kh, userId, token);
  const credential = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });
  const res = await kh.rest('POST', `/v2/users/${userId}/u2f/${reg.u2fId}`, { publicKeyCredential: credential, tokenName: 'key' }, bearer(token));
  expect(res.status).toBe(200);
  return res.body;
}

describe('recovery codes on the API', () => {
  it('the first key verified by its user answers 10 codes, only the hashes are stored, a second key answers none', async () => {
    const user = await plainUser(kh);
    const first = await addKey(user.userId, user.token);
    expect(first.recoveryCodes).toHaveLength(10);
    for (const code of first.recoveryCodes) expect(code).toMatch(CODE);
    expect(new Set(first.recoveryCodes).size).toBe(10);

    const events = await createEventStore(kh.database).load('user', user.userId);
    const generated = events.find((e) => e.type === 'user.recovery.codes.generated')!;
    expect(generated).toBeDefined();
    const stored = JSON.stringify(events.map((e) => e.payload));
    for (const code of first.recoveryCodes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace('-', ''));
    }

    const second = await addKey(user.userId, user.token);
    expect(second.recoveryCodes ?? []).toEqual([]);
    const list = await kh.client(UserService, 'connect', user.token).listU2FTokens({ userId: user.userId });
    expect(list.result).toHaveLength(2);
    expect(list.unusedRecoveryCodes).toBe(10);
  });

  it('a key an administrator verifies for another user brings no codes (they are self only)', async () => {
    const user = await plainUser(kh);
    const body = await addKey(user.userId, kh.adminToken);
    expect(body.recoveryCodes ?? []).toEqual([]);
    expect((await kh.client(UserService, 'grpc', kh.adminToken).listU2FTokens({ userId: user.userId })).unusedRecoveryCodes).toBe(0);
  });

  it('GenerateRecoveryCodes: the user for themself gets a new set that replaces the old; anyone else, even the admin, 403', async () => {
    const user = await plainUser(kh);
    const first = await kh.client(UserService, 'grpc', user.token).generateRecoveryCodes({ userId: user.userId });
    expect(first.recoveryCodes).toHaveLength(10);
    const again = await kh.rest('POST', `/v2/users/${user.userId}/recovery_codes`, {}, bearer(user.token));
    expect(again.status).toBe(200);
    expect(again.body.recoveryCodes).toHaveLength(10);
    expect(again.body.recoveryCodes).not.toEqual(first.recoveryCodes);
    expect(again.body.details.sequence).toMatch(/^\d+$/);

    const byAdmin = await kh.rest('POST', `/v2/users/${user.userId}/recovery_codes`, {}, bearer(kh.adminToken));
    expect(byAdmin.status).toBe(403);
    expect(restReason(byAdmin.body)).toBe('RECOVERY_CODES_SELF_ONLY');
    const other = await plainUser(kh);
    const byOther = await kh.rest('POST', `/v2/users/${user.userId}/recovery_codes`, {}, bearer(other.token));
    expect(byOther.status).toBe(403);
    const noCodes = JSON.stringify([byAdmin.body, byOther.body]);
    for (const code of again.body.recoveryCodes) expect(noCodes).not.toContain(code);
    expect((await kh.rest('POST', '/v2/users/%20/recovery_codes', {}, bearer(user.token))).status).toBe(400);
  });

  it('RemoveAllU2F: every key and the codes go; containment refuses a caller lacking what the user holds', async () => {
    const owner = await machineCaller(kh, undefined, `owner-${Date.now()}`, ['ORG_OWNER']);
    const manager = await machineCaller(kh, undefined, `manager-${Date.now()}`, ['ORG_USER_MANAGER']);
    await addKey(owner.userId, owner.token);
    await addKey(owner.userId, owner.token);
    await startRegistration(kh, owner.userId, owner.token); // a pending one goes too

    const refused = await kh.rest('DELETE', `/v2/users/${owner.userId}/u2f`, undefined, bearer(manager.token));
    expect(refused.status).toBe(403);
    expect(restReason(refused.body)).toBe('PRIVILEGE_ESCALATION');
    const before = await kh.client(UserService, 'grpc', kh.adminToken).listU2FTokens({ userId: owner.userId });
    expect(before.result).toHaveLength(3);
    expect(before.unusedRecoveryCodes).toBe(10);

    const removed = await kh.rest('DELETE', `/v2/users/${owner.userId}/u2f`, undefined, bearer(kh.adminToken));
    expect(removed.status).toBe(200);
    expect(removed.body.removed).toBe(3);
    const after = await kh.client(UserService, 'grpc', kh.adminToken).listU2FTokens({ userId: owner.userId });
    expect(after.result).toEqual([]);
    expect(after.unusedRecoveryCodes).toBe(0);
    const types = (await createEventStore(kh.database).load('user', owner.userId)).map((e) => e.type);
    expect(types).toContain('user.recovery.codes.removed');

    // Nothing left: still 200, nothing written.
    const again = await kh.client(UserService, 'connect', kh.adminToken).removeAllU2F({ userId: owner.userId });
    expect(again.removed).toBe(0);
    // The next first key brings a new set.
    expect((await addKey(owner.userId, owner.token)).recoveryCodes).toHaveLength(10);
  });
});
