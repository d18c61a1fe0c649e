// Events of an organization: its creation and its members.
import type { MemberAddedPayload } from './members.js';

export interface OrgEventPayloads {
  'org.added': { name: string };
  'org.member.added': MemberAddedPayload;
}
