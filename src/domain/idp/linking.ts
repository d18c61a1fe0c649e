// What a sign-in through a provider comes to, decided from the link of its
// (provider, subject) alone. An address never links: an existing account with
// the upstream's address (verified or not, trusted or not) is at most offered
// as "sign in to your account to link it", and linking then takes that
// account's own factors. Taking an account over by an address the upstream
// did not verify (or verified for somebody else) is the failure this rules out.
import type { LinkingOptions } from './provider.js';

export type LinkDecision =
  /** The identity is linked: its user signs in. */
  | { kind: 'linked'; userId: string }
  /** Nobody linked; an account is created now (auto creation). */
  | { kind: 'create' }
  /** Nobody linked; the person chooses: create an account (when allowed) or sign in to an existing one to link it (when allowed). */
  | { kind: 'choose'; create: boolean; link: boolean; accountWithAddress: boolean }
  /** Nobody linked and the provider allows neither creation nor linking. */
  | { kind: 'refused'; reason: 'IDP_LINK_REQUIRED' };

export interface LinkFacts {
  /** The user the (provider, subject) is linked to, if any. */
  linkedUserId?: string;
  /** Whether some account of the org already holds the upstream's address (only ever shown as a hint to sign in). */
  accountWithAddress: boolean;
  options: LinkingOptions;
}

export function decideLink(facts: LinkFacts): LinkDecision {
  if (facts.linkedUserId) return { kind: 'linked', userId: facts.linkedUserId };
  const { isCreationAllowed, isAutoCreation, isLinkingAllowed } = facts.options;
  // Auto creation only where no account holds the address: its owner is asked to sign in and link instead of getting a twin.
  if (isCreationAllowed && isAutoCreation && !facts.accountWithAddress) return { kind: 'create' };
  if (!isCreationAllowed && !isLinkingAllowed) return { kind: 'refused', reason: 'IDP_LINK_REQUIRED' };
  return { kind: 'choose', create: isCreationAllowed, link: isLinkingAllowed, accountWithAddress: facts.accountWithAddress };
}
