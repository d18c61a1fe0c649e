// The last-owner rule counts owners who can sign in: a deactivated or locked
// ORG_OWNER owns nothing for it. So an org's last active owner is neither
// deactivated, locked, demoted nor removed, and two owners deactivating or
// locking each other at once never both succeed (decided on the org's
// version, src/commands/users/user-lifecycle.ts). On PGlite, and on PostgreSQL with TEST_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restReason } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
}, 60_000);
afterAll(async () => kh?.close());

let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

/** An org with exactly two owners (machine users with PATs). */
async function twoOwners(): Promise<{ orgId: string; a: MachineCaller; b: MachineCaller }> {
  const orgId = await addOrg(kh, unique('Owned'));
  const [a, b] = await Promise.all([machineCaller(kh, orgId, unique('owner-a'), ['ORG_OWNER']), machineCaller(kh, orgId, unique('owner-b'), ['ORG_OWNER'])]);
  return { orgId, a, b };
}

const active = async (userId: string) => (await kh.readModel.user(userId))?.state === 'active';

describe('the last active owner', () => {
  it('is not deactivated, locked, demoted or removed once the other owner is deactivated', async () => {
    const { orgId, a, b } = await twoOwners();
    expect((await kh.rest('POST', `/v2/users/${b.userId}/deactivate`, {})).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', `/v2/users/${a.userId}/deactivate`, {}],
      ['POST', `/v2/users/${a.userId}/lock`, {}],
      ['PUT', `/management/v1/orgs/me/members/${a.userId}`, { roles: ['ORG_USER_MANAGER'] }],
      ['DELETE', `/management/v1/orgs/me/members/${a.userId}`, undefined],
    ] as const) {
      const refused = await kh.rest(method, path, body, inOrg(orgId));
      expect([refused.status, restReason(refused.body)]).toEqual([400, 'LAST_ORG_OWNER']);
    }
    expect(await active(a.userId)).toBe(true);
    // Reactivated, b counts again: a may go.
    expect((await kh.rest('POST', `/v2/users/${b.userId}/reactivate`, {})).status).toBe(200);
    expect((await kh.rest('POST', `/v2/users/${a.userId}/lock`, {})).status).toBe(200);
  });

  it('two owners deactivating each other at once: never both, over 8 rounds', async () => {
    for (let round = 0; round < 8; round++) {
      const { a, b } = await twoOwners();
      const step = round % 2 === 0 ? 'deactivate' : 'lock';
      const answers = await Promise.all([
        kh.rest('POST', `/v2/users/${b.userId}/${step}`, {}, bearer(a.token)),
        kh.rest('POST', `/v2/users/${a.userId}/${step}`, {}, bearer(b.token)),
      ]);
      // The loser is refused by the rule, or (its own user already out) not authenticated at all.
      expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      for (const r of answers.filter((x) => x.status !== 200)) expect([r.status === 401 || restReason(r.body) === 'LAST_ORG_OWNER']).toEqual([true]);
      expect((await active(a.userId)) || (await active(b.userId))).toBe(true);
    }
  });

  it('8 concurrent deactivations of both owners by an instance owner, over 8 rounds: exactly one owner goes', async () => {
    for (let round = 0; round < 8; round++) {
      const { a, b } = await twoOwners();
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => kh.rest('POST', `/v2/users/${(i % 2 ? a : b).userId}/deactivate`, {})));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of answers.filter((x) => x.status !== 200)) expect(['LAST_ORG_OWNER', 'USER_ALREADY_INACTIVE']).toContain(restReason(r.body));
      expect([await active(a.userId), await active(b.userId)].filter(Boolean)).toHaveLength(1);
    }
  });
});
