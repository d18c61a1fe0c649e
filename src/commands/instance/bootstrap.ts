// Bootstrap: the instance with its first org, an admin machine user holding
// IAM_OWNER and a personal access token for it — three aggregates in one
// append. The plan (ids and the token) is drawn first, so that the server can
// put the token on disk before the commit that makes it valid
// (src/server/bootstrap.ts). Of two processes bootstrapping one database at
// once, one commits; the other's instance decider refuses ID_TAKEN.
import type { StoredEvent } from '../../domain/events/index.js';
import { instanceDecider } from '../../domain/instance/decider.js';
import { INSTANCE_ID } from '../../domain/events/index.js';
import { orgDecider } from '../../domain/org/decider.js';
import { userDecider } from '../../domain/user/decider.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';

export interface BootstrapPlan {
  orgId: string;
  adminUserId: string;
  tokenId: string;
  /** The admin's token in clear: written to the PAT file, never logged. */
  adminToken: string;
  adminTokenHash: string;
}

export function planBootstrap(ports: Pick<Ports, 'ids' | 'secrets'>): BootstrapPlan {
  const token = ports.secrets.personalAccessToken();
  return { orgId: ports.ids.newId(), adminUserId: ports.ids.newId(), tokenId: ports.ids.newId(), adminToken: token.token, adminTokenHash: token.hash };
}

/** Appends the plan's instance; rejects with KeyholdError ID_TAKEN when the instance exists. */
export function bootstrapInstance(ports: Pick<Ports, 'events'>, plan: BootstrapPlan, orgName = 'Keyhold'): Promise<StoredEvent[]> {
  const { orgId, adminUserId } = plan;
  return runCommands(ports.events, [
    target({ type: 'instance', id: INSTANCE_ID }, instanceDecider, { kind: 'bootstrap', defaultOrgId: orgId, adminUserId }, { creates: true }),
    target({ type: 'org', id: orgId }, orgDecider(orgId), { kind: 'add', name: orgName, admins: [], actor: adminUserId }, { creates: true }),
    target(
      { type: 'user', id: adminUserId },
      userDecider(adminUserId),
      {
        kind: 'addMachine',
        orgId,
        username: 'admin',
        name: 'Keyhold administrator',
        description: 'Created at bootstrap',
        actor: adminUserId,
        token: { tokenId: plan.tokenId, tokenHash: plan.adminTokenHash, expiresAt: null },
      },
      { creates: true },
    ),
  ]);
}
