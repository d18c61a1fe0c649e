// An org removed while things are created in it, and orgs deactivated at once
// that hold the last IAM_OWNERs: nothing survives without its org, and the
// instance always keeps an owner who can sign in. Over REST, ROUNDS rounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/commands/run.js';
import { INSTANCE_ID } from '../../../src/domain/events/index.js';
import { instanceDecider } from '../../../src/domain/instance/decider.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { restReason } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';
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

    // Last in the file: it deactivates every other IAM_OWNER (the admin too).
    it(`two orgs holding the last two IAM_OWNERs deactivated at once, each by the other's owner: never both (${ROUNDS} rounds)`, async () => {
      const events = createEventStore(kh.database);
      const owners = [];
      for (const name of ['Left', 'Right']) {
        const orgId = await addOrg(kh, unique(name));
        const owner = await machineCaller(kh, orgId, unique('iam'), ['ORG_OWNER']);
        await runCommand(events, { type: 'instance', id: INSTANCE_ID }, instanceDecider, { kind: 'addOwner', userId: owner.userId, actor: owner.userId });
        owners.push({ orgId, ...owner });
      }
      const [left, right] = owners as [(typeof owners)[0], (typeof owners)[0]];
      // Every other IAM_OWNER out: these two are the last.
      for (const id of await kh.readModel.instanceOwnerIds()) {
        if (id !== left.userId && id !== right.userId) expect((await kh.rest('POST', `/v2/users/${id}/deactivate`, {}, bearer(left.token))).status).toBe(200);
      }
      const activeOwners = async () => {
        const facts = await Promise.all([left, right].map((o) => kh.readModel.userFacts(o.userId)));
        return facts.filter((f) => f?.state === 'active' && f.orgActive !== false).length;
      };
      for (let round = 0; round < ROUNDS; round++) {
        const answers = await Promise.all([
          kh.rest('POST', '/management/v1/orgs/me/_deactivate', {}, bearer(left.token, inOrg(right.orgId))),
          kh.rest('POST', '/management/v1/orgs/me/_deactivate', {}, bearer(right.token, inOrg(left.orgId))),
        ]);
        expect(answers.filter((a) => a.status === 200), `round ${round}: ${answers.map((a) => `${a.status} ${a.status === 200 ? '' : restReason(a.body)}`).join(', ')}`).toHaveLength(1);
        // The loser: the rule, or (its own org switched off first) no longer signed in.
        for (const a of answers.filter((x) => x.status !== 200)) expect(a.status === 401 || restReason(a.body) === 'LAST_IAM_OWNER', `${a.status} ${restReason(a.body)}`).toBe(true);
        expect(await activeOwners()).toBe(1);
        // The survivor switches the other org back on for the next round.
        const survivor = (await kh.readModel.userFacts(left.userId))?.orgActive !== false ? left : right;
        const other = survivor === left ? right : left;
        expect((await kh.rest('POST', '/management/v1/orgs/me/_reactivate', {}, bearer(survivor.token, inOrg(other.orgId)))).status).toBe(200);
        expect(await activeOwners()).toBe(2);
      }
    }, 120_000);
  });
}
