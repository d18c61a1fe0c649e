// An org's login policy over REST as ZITADEL has it —
// GET|POST|PUT /management/v1/policies/login in the org of the call
// (x-service-orgid, else the caller's own), forceMfa. An update names both
// first factors (passwordlessType, allowUsernamePassword).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => kh?.close());

const PATH = '/management/v1/policies/login';

describe('login policy (GetLoginPolicy, AddCustomLoginPolicy, UpdateCustomLoginPolicy)', () => {
  it('default, then the org’s own with forceMfa, then changed; each answer with its version', async () => {
    const orgId = await addOrg(kh, `Policy ${Date.now()}`);
    const h = inOrg(orgId);
    const first = await kh.rest('GET', PATH, undefined, h);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ isDefault: true, policy: { isDefault: true, details: { resourceOwner: orgId } } });
    expect(first.body.policy.forceMfa ?? false).toBe(false);

    const added = await kh.rest('POST', PATH, { forceMfa: true }, h);
    expect(added.status).toBe(200);
    expect(added.body.details.resourceOwner).toBe(orgId);
    const got = await kh.rest('GET', PATH, undefined, h);
    expect(got.body.policy).toMatchObject({ forceMfa: true, details: { sequence: added.body.details.sequence } });
    expect(got.body.isDefault ?? false).toBe(false);

    // Once per org: then it is changed.
    const again = await kh.rest('POST', PATH, { forceMfa: false }, h);
    expect(again.status).toBe(409);
    expect(again.body.details?.[0]?.reason ?? JSON.stringify(again.body)).toContain('LOGIN_POLICY_EXISTS');
    const changed = await kh.rest('PUT', PATH, { forceMfa: false, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED', allowUsernamePassword: true }, h);
    expect(changed.status).toBe(200);
    expect((await kh.rest('GET', PATH, undefined, h)).body.policy.forceMfa ?? false).toBe(false);
    // The same values again change nothing: the same version.
    const same = await kh.rest('PUT', PATH, { forceMfa: false, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED', allowUsernamePassword: true }, h);
    expect(same.status).toBe(200);
    expect(same.body.details.sequence).toBe(changed.body.details.sequence);
  });

  it('PUT before any POST: 404 naming the reason; a wrong type: 400 naming the field', async () => {
    const orgId = await addOrg(kh, `Policy none ${Date.now()}`);
    const put = await kh.rest('PUT', PATH, { forceMfa: true, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED', allowUsernamePassword: true }, inOrg(orgId));
    expect(put.status).toBe(404);
    expect(JSON.stringify(put.body)).toContain('LOGIN_POLICY_NOT_FOUND');
    const bad = await kh.rest('POST', PATH, { forceMfa: 'yes' }, inOrg(orgId));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('forceMfa');
    expect((await kh.rest('GET', PATH, undefined, inOrg(orgId))).body.isDefault).toBe(true);
  });

  it('an org owner sets its own org’s policy; a user without a role may not read or write it', async () => {
    const orgId = await addOrg(kh, `Policy owner ${Date.now()}`);
    const owner = await machineCaller(kh, orgId, `policy-owner-${Date.now()}`, ['ORG_OWNER']);
    const plain = await machineCaller(kh, orgId, `policy-plain-${Date.now()}`);
    expect((await kh.rest('POST', PATH, { forceMfa: true }, bearer(owner.token))).status).toBe(200);
    expect((await kh.rest('GET', PATH, undefined, bearer(owner.token))).body.policy.forceMfa).toBe(true);
    expect((await kh.rest('GET', PATH, undefined, bearer(plain.token))).status).toBe(403);
    expect((await kh.rest('PUT', PATH, { forceMfa: false, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED', allowUsernamePassword: true }, bearer(plain.token))).status).toBe(403);
    expect((await kh.rest('GET', PATH, undefined, bearer(owner.token))).body.policy.forceMfa).toBe(true);
  });
});
