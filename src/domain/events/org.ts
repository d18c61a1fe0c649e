// Events of an organization: its creation, its members and its login policy.
import type { MemberAddedPayload } from './members.js';

export interface OrgEventPayloads {
  'org.added': { name: string };
  'org.member.added': MemberAddedPayload;
  /** AddCustomLoginPolicy: the org's own login policy (issue 18; ZITADEL's shape, forceMfa only so far). */
  'org.login.policy.added': { forceMfa: boolean };
  /** UpdateCustomLoginPolicy. */
  'org.login.policy.changed': { forceMfa: boolean };
}
