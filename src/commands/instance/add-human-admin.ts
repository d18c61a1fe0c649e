// The human admin: a person who can log in through the login page
// as IAM_OWNER, with an initial random password that must be changed at the
// first login. Made at start, after bootstrap, on new instances and on those
// bootstrapped before it existed (src/server/bootstrap.ts ensureHumanAdmin).
// The user and its IAM_OWNER membership are one append; of two processes doing
// it at once, one commits, the other meets USERNAME_TAKEN on the username.
import type { StoredEvent } from '../../domain/events/index.js';
import { INSTANCE_ID } from '../../domain/events/index.js';
import { instanceDecider } from '../../domain/instance/decider.js';
import { userDecider } from '../../domain/user/decider.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';

/** The human admin's username (the bootstrap's machine user holds `admin`). */
export const HUMAN_ADMIN_USERNAME = 'keyhold-admin';

export interface HumanAdminPlan {
  userId: string;
  orgId: string;
  /** The initial password in clear: written to the password file, never logged. */
  password: string;
  passwordHash: string;
}

export function addHumanAdmin(ports: Pick<Ports, 'events'>, plan: HumanAdminPlan): Promise<StoredEvent[]> {
  const { userId, orgId } = plan;
  return runCommands(ports.events, [
    target(
      { type: 'user', id: userId },
      userDecider(userId),
      {
        kind: 'addHuman',
        orgId,
        username: HUMAN_ADMIN_USERNAME,
        givenName: 'Keyhold',
        familyName: 'Administrator',
        displayName: '',
        email: 'admin@keyhold.localhost',
        actor: userId,
        password: { passwordHash: plan.passwordHash, changeRequired: true },
      },
      { creates: true },
    ),
    target({ type: 'instance', id: INSTANCE_ID }, instanceDecider, { kind: 'addOwner', userId, actor: userId }),
  ]);
}
