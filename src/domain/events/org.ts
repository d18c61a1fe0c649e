// Events of an organization: its creation, name, state and removal, its members, its login and lockout policies.
import type { MemberAddedPayload, MemberChangedPayload, MemberRemovedPayload } from './members.js';

export interface OrgEventPayloads {
  'org.added': { name: string };
  /** UpdateOrg: the new name (in its stored form). */
  'org.changed': { name: string };
  /** DeactivateOrg: its users cannot log in and its apps cannot authenticate until ReactivateOrg. */
  'org.deactivated': Record<string, never>;
  'org.reactivated': Record<string, never>;
  /** RemoveOrg: everything under it is removed by its own events in the same append. */
  'org.removed': Record<string, never>;
  'org.member.added': MemberAddedPayload;
  'org.member.changed': MemberChangedPayload;
  'org.member.removed': MemberRemovedPayload;
  /**
   * An ORG_OWNER of the org deactivated or locked (DeactivateUser, LockUser), recorded on the org
   * with the user's own event: two owners deactivating each other meet on the org's version, and
   * the second is decided knowing the first (the last-owner rule counts active owners only).
   */
  'org.owner.suspended': { userId: string };
  /** AddCustomLoginPolicy: the org's own login policy (ZITADEL's shape, so far as Keyhold has it). */
  'org.login.policy.added': LoginPolicyPayload;
  /** UpdateCustomLoginPolicy: the whole policy as it now is. */
  'org.login.policy.changed': LoginPolicyPayload;
  /**
   * AddCustomLockoutPolicy: the org's own lockout policy (the API's maxPasswordAttempts;
   * named maxAttempts here as a field named "password" would be taken for a secret). 0: no lock.
   */
  'org.lockout.policy.added': { maxAttempts: number };
  /** UpdateCustomLockoutPolicy. */
  'org.lockout.policy.changed': { maxAttempts: number };
}

/**
 * A login policy. The first-factor fields came later: an event without them
 * means their defaults (passkeys allowed, password allowed).
 */
export interface LoginPolicyPayload {
  forceMfa: boolean;
  /** ZITADEL's passwordlessType: PASSWORDLESS_TYPE_ALLOWED (true) or PASSWORDLESS_TYPE_NOT_ALLOWED. */
  passwordlessAllowed?: boolean;
  /** ZITADEL's allowUsernamePassword (a field named "password" would be taken for a secret). */
  allowUsernamePw?: boolean;
  /** ZITADEL's allowRegister (absent in older events: off). */
  allowRegister?: boolean;
  /** The address domains a registration may use (absent: any). */
  registerDomains?: string[];
  /** A registered address is verified before the first login (absent: required). */
  registerVerification?: boolean;
}
