// An org's lockout policy over REST as ZITADEL has it —
// GET|POST|PUT /management/v1/policies/lockout in the org of the call
// (x-service-orgid, else the caller's own), maxPasswordAttempts (0: no lock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => kh?.close());

const PATH = '/management/v1/policies/lockout';

describe('lockout policy (GetLockoutPolicy, AddCustomLockoutPolicy, UpdateCustomLockoutPolicy)', () => {
  it('default off, then the org’s own threshold, then changed; each answer with its version; an event each', async () => {
    const orgId = await addOrg(kh, `Lockout ${Date.now()}`);
    const h = inOrg(orgId);
    const first = await kh.rest('GET', PATH, undefined, h);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ isDefault: true, policy: { isDefault: true, details: { resourceOwner: orgId } } });
    expect(first.body.policy.maxPasswordAttempts ?? 0).toBe(0);

    const added = await kh.rest('POST', PATH, { maxPasswordAttempts: 5 }, h);
    expect(added.status).toBe(200);
    expect(added.body.details.resourceOwner).toBe(orgId);
    const got = await kh.rest('GET', PATH, undefined, h);
    expect(got.body.policy).toMatchObject({ maxPasswordAttempts: 5, details: { sequence: added.body.details.sequence } });
    expect(got.body.isDefault ?? false).toBe(false);

    const again = await kh.rest('POST', PATH, { maxPasswordAttempts: 3 }, h);
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toContain('LOCKOUT_POLICY_EXISTS');
    const changed = await kh.rest('PUT', PATH, { maxPasswordAttempts: 3 }, h);
    expect(changed.status).toBe(200);
    expect((await kh.rest('GET', PATH, undefined, h)).body.policy.maxPasswordAttempts).toBe(3);
    const same = await kh.rest('PUT', PATH, { maxPasswordAttempts: 3 }, h);
    expect(same.body.details.sequence).toBe(changed.body.details.sequence);
    // Off again.
    expect((await kh.rest('PUT', PATH, { maxPasswordAttempts: 0 }, h)).status).toBe(200);
    expect((await kh.rest('GET', PATH, undefined, h)).body.policy.maxPasswordAttempts ?? 0).toBe(0);

    const events = await kh.rest('POST', '/admin/v1/events/_search', { resourceOwner: orgId, asc: true, eventTypes: ['org.lockout.policy.added', 'org.lockout.policy.changed'] });
    expect(events.body.events.map((e: { payload: unknown }) => e.payload)).toEqual([{ maxAttempts: 5 }, { maxAttempts: 3 }, { maxAttempts: 0 }]);
  });

  it('PUT before any POST: 404 naming the reason; a bad value: 400 naming the field; nothing stored', async () => {
    const orgId = await addOrg(kh, `Lockout none ${Date.now()}`);
    const put = await kh.rest('PUT', PATH, { maxPasswordAttempts: 3 }, inOrg(orgId));
    expect(put.status).toBe(404);
    expect(JSON.stringify(put.body)).toContain('LOCKOUT_POLICY_NOT_FOUND');
    for (const bad of [-1, 'many', 1.5, 100_000]) {
      const res = await kh.rest('POST', PATH, { maxPasswordAttempts: bad }, inOrg(orgId));
      expect(res.status, String(bad)).toBe(400);
      expect(JSON.stringify(res.body), String(bad)).toMatch(/maxPasswordAttempts|max_password_attempts/);
    }
    expect((await kh.rest('GET', PATH, undefined, inOrg(orgId))).body.isDefault).toBe(true);
  });

  it('an org owner sets its own org’s policy; a user without a role may not read or write it', async () => {
    const orgId = await addOrg(kh, `Lockout owner ${Date.now()}`);
    const owner = await machineCaller(kh, orgId, `lockout-owner-${Date.now()}`, ['ORG_OWNER']);
    const plain = await machineCaller(kh, orgId, `lockout-plain-${Date.now()}`);
    expect((await kh.rest('POST', PATH, { maxPasswordAttempts: 4 }, bearer(owner.token))).status).toBe(200);
    expect((await kh.rest('GET', PATH, undefined, bearer(owner.token))).body.policy.maxPasswordAttempts).toBe(4);
    expect((await kh.rest('GET', PATH, undefined, bearer(plain.token))).status).toBe(403);
    expect((await kh.rest('PUT', PATH, { maxPasswordAttempts: 0 }, bearer(plain.token))).status).toBe(403);
    expect((await kh.rest('GET', PATH, undefined, bearer(owner.token))).body.policy.maxPasswordAttempts).toBe(4);
  });
});
