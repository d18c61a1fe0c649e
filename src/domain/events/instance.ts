// Events of the one instance aggregate (id INSTANCE_ID): its creation at
// bootstrap and its members (instance-wide roles such as IAM_OWNER).
import type { MemberAddedPayload } from './members.js';

/** The id of the one instance aggregate. Its `instance.added` at sequence 1 marks bootstrap. */
export const INSTANCE_ID = 'default';

export interface InstanceEventPayloads {
  'instance.added': { defaultOrgId: string };
  'instance.member.added': MemberAddedPayload;
  /**
   * The login's per-IP throttle engaged by wrong passwords for names nobody holds (password
   * spraying; for a known user it is the user's `user.login.throttled`). Never the password or the name.
   */
  'instance.login.throttled': { clientId: string; clientIp: string; waitSeconds: number };
  /**
   * An org holding IAM_OWNERs was deactivated or removed (`userIds`: those owners): recorded on the
   * instance so that two such endings meet on its version and the last owner rule is decided once.
   */
  'instance.owners.ended': { orgId: string; userIds: string[] };
}
