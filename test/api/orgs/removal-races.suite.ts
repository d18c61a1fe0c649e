// An org removed while things are created in it, and orgs deactivated at once
// that hold the last IAM_OWNERs: nothing survives without its org, and the
// instance always keeps an owner who can sign in. Over REST, ROUNDS rounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restReason } from '../../support/errors.js';
import { addOrg, inOrg } from '../../support/identity.js';
import type { TestKeyhold } from '../../support/keyhold.js';

const ROUNDS = 4;
const AT_ONCE = 8;

export function removalRacesSuite(label: string, start: () => Promise<TestKeyhold>, skip = false): void {
  describe.skipIf(skip)(`org removal races: ${label}`, () => {
    let kh: TestKeyhold;
    beforeAll(async () => {
      kh = await start();
    }, 120_000);
    afterAll(async () => kh?.close());

    let n = 0;
    const unique = (p: string) => `${p}-${++n}-${process.pid}`;
    const rows = async (table: 'projects' | 'users', orgId: string) =>
      Number((await kh.database.sql.query<{ n: string | number }>({ text: `select count(*) as n from ${table} where org_id = $1`, params: [orgId] }))[0]!.n);

    it(`RemoveOrg racing ${AT_ONCE} AddProject and AddHumanUser in the org: nothing is left without its org (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const orgId = await addOrg(kh, unique('Going'));
        const creations = Array.from({ length: AT_ONCE }, (_, i) =>
          i % 2 === 0
            ? kh.rest('POST', '/management/v1/projects', { name: unique('p') }, inOrg(orgId))
            : kh.rest('POST', '/v2/users/human', { username: unique('u'), organization: { orgId }, profile: { givenName: 'G', familyName: 'O' }, email: { email: `${unique('u')}@example.com` } }),
        );
        const [removed, ...created] = await Promise.all([kh.rest('DELETE', '/management/v1/orgs/me', undefined, inOrg(orgId)), ...creations]);
        expect(removed.status, JSON.stringify(removed.body)).toBe(200);
        // A creation is answered as made (then removed with the org), or refused: the org not found, or no longer the caller's to act in.
        for (const c of created) expect([200, 403, 404], JSON.stringify(c.body)).toContain(c.status);
        expect([await rows('projects', orgId), await rows('users', orgId)], `round ${round}`).toEqual([0, 0]);
        // Afterwards the org takes nothing.
        expect((await kh.rest('POST', '/management/v1/projects', { name: unique('late') }, inOrg(orgId))).status).not.toBe(200);
      }
    }, 120_000);
  });
}
