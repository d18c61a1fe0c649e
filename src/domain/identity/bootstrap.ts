// The events that create an instance: its first org, an admin machine user with
// IAM_OWNER and a personal access token for it. They are appended together
// with `instance.added` at sequence 1 of the one instance aggregate, so two
// processes bootstrapping one database at once cannot both succeed.
import type { NewEvent } from '../../store/events.js';
import { INSTANCE_ID } from '../../store/events.js';
import { newId } from '../ids.js';
import { generatePersonalAccessToken, hashToken } from './tokens.js';

export interface BootstrapPlan {
  events: NewEvent[];
  orgId: string;
  adminUserId: string;
  /** The admin's token in clear: written to the PAT file, never logged. */
  adminToken: string;
}

export function planBootstrap(orgName = 'Keyhold'): BootstrapPlan {
  const orgId = newId();
  const adminUserId = newId();
  const adminToken = generatePersonalAccessToken();
  const own = { resourceOwner: orgId, creator: adminUserId };
  const events: NewEvent[] = [
    { aggregateType: 'instance', aggregateId: INSTANCE_ID, type: 'instance.added', payload: { defaultOrgId: orgId }, ...own },
    { aggregateType: 'org', aggregateId: orgId, type: 'org.added', payload: { name: orgName }, ...own },
    {
      aggregateType: 'user',
      aggregateId: adminUserId,
      type: 'user.machine.added',
      payload: { username: 'admin', name: 'Keyhold administrator', description: 'Created at bootstrap' },
      ...own,
    },
    {
      aggregateType: 'user',
      aggregateId: adminUserId,
      type: 'user.pat.added',
      payload: { tokenId: newId(), tokenHash: hashToken(adminToken), expiresAt: null },
      ...own,
    },
    {
      aggregateType: 'instance',
      aggregateId: INSTANCE_ID,
      type: 'instance.member.added',
      payload: { userId: adminUserId, roles: ['IAM_OWNER'] },
      ...own,
    },
  ];
  return { events, orgId, adminUserId, adminToken };
}
