// What a sign-in through another provider comes to, once the upstream's
// answer passed every check of the exchange (src/server/idp/upstream.ts): the
// identity read by the provider's mapping and trust, its link looked up by
// (provider, subject) alone (src/domain/idp/linking.ts), and then a login of
// the linked user (recorded, with its amr), a user created just in time and
// linked, the person's choice (create, or sign in to an existing account to
// link it), or a refusal. An address never signs anyone in: an account
// holding the upstream's address is only told to the person as a hint.
import type { Commands } from '../commands/index.js';
import type { Caller } from '../access/caller.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { externalAmr, satisfiesMfa } from '../domain/idp/amr.js';
import { identityOf, type ExternalIdentity } from '../domain/idp/external-identity.js';
import { decideLink } from '../domain/idp/linking.js';
import type { FieldMapping } from '../domain/idp/provider.js';
import type { ReadModel } from '../queries/read-model.js';

export type ExternalResult =
  /** The linked user signs in; `secondFactor`: the org requires one the upstream's login did not give (Keyhold's own follows). */
  | { kind: 'login'; userId: string; amr: string[]; secondFactor: boolean; created: boolean }
  /** Nobody linked: the person chooses (the identity kept for the choice). */
  | { kind: 'choose'; create: boolean; link: boolean; accountWithAddress: boolean; identity: ExternalIdentity }
  | { kind: 'refused'; reason: 'IDP_NOT_FOUND' | 'IDP_LINK_REQUIRED' | 'SUBJECT_MISSING' | 'USER_NOT_ACTIVE' | 'USERNAME_TAKEN' | 'PROFILE_INCOMPLETE' };

export interface ExternalPorts {
  read: Pick<ReadModel, 'identityProvider' | 'idpLink' | 'userFacts' | 'searchUsers'>;
  commands: Pick<Commands, 'useIdpLink' | 'linkAtLogin' | 'addHumanUser' | 'setEmail'>;
  mfaRequired(userId: string): Promise<boolean>;
}

export interface ExternalInput {
  idpId: string;
  /** The org whose app the sign-in is for (its org scope, else the instance's default org). */
  orgId: string;
  clientId: string;
  claims: Record<string, unknown>;
  mapping: FieldMapping;
}

/** Whether some human of the org already holds `email` (compared without case): a hint for the person, never a link. */
async function addressHeld(read: ExternalPorts['read'], orgId: string, email: string | undefined): Promise<boolean> {
  if (!email) return false;
  const found = await read.searchUsers(
    { orgIds: [orgId], userIds: [], usernames: [], displayNames: [], emails: [{ value: email, method: 'equalsIgnoreCase' }], kinds: ['human'], states: [], inOrgs: [] },
    { offset: 0, limit: 1, asc: true },
  );
  return found.total > 0;
}

/**
 * The login creates the user as the provider's administrator allowed (isCreationAllowed): a caller
 * that may add users in that org only, acting as the provider (the events' creator says so).
 */
const creatorFor = (idpId: string, orgId: string): Caller => ({ userId: `idp:${idpId}`, orgId, tokenId: 'login', memberships: [{ scopeType: 'org', scopeId: orgId, orgId, roles: ['ORG_USER_MANAGER'] }] });

/** How long a first sign-in that lost the race to create the user waits for the winner's link, and how often it looks. */
const WINNER_WAIT_MS = 2_000;
const WINNER_POLL_MS = 50;

export async function externalSignIn(ports: ExternalPorts, input: ExternalInput): Promise<ExternalResult> {
  const provider = await ports.read.identityProvider(input.idpId);
  // Removed meanwhile, or another org's provider: nobody signs in through it.
  if (!provider || (provider.orgId !== undefined && provider.orgId !== input.orgId)) return { kind: 'refused', reason: 'IDP_NOT_FOUND' };
  const { trust, options } = provider.settings;
  const identity = identityOf(input.claims, input.mapping, trust);
  if (typeof identity === 'string') return { kind: 'refused', reason: identity };
  const linked = await ports.read.idpLink(input.idpId, identity.subject);
  const linkedUser = linked ? await ports.read.userFacts(linked.userId) : undefined;
  const decision = decideLink({ linkedUserId: linkedUser?.id, accountWithAddress: await addressHeld(ports.read, input.orgId, identity.email), options });
  const amr = externalAmr(identity.amr, trust);
  const loginAs = async (userId: string, created: boolean): Promise<ExternalResult> => {
    try {
      await ports.commands.useIdpLink({ idpId: input.idpId, subject: identity.subject, userId, clientId: input.clientId, amr });
    } catch (err) {
      if (err instanceof KeyholdError && (err.reason === 'IDP_LINK_NOT_FOUND' || err.reason === 'IDP_NOT_FOUND')) return { kind: 'refused', reason: 'IDP_NOT_FOUND' };
      throw err;
    }
    const secondFactor = (await ports.mfaRequired(userId)) && !satisfiesMfa(identity.amr, trust);
    return { kind: 'login', userId, amr, secondFactor, created };
  };
  switch (decision.kind) {
    case 'linked':
      if (linkedUser?.state !== 'active') return { kind: 'refused', reason: 'USER_NOT_ACTIVE' };
      return loginAs(decision.userId, false);
    case 'refused':
      return { kind: 'refused', reason: decision.reason };
    case 'choose':
      return { ...decision, identity };
    case 'create': {
      // Two first sign-ins of one identity at once (a double click, two tabs): one creates the user and links
      // it; the other finds the name taken, or the link taken, and signs in as the user the winner linked.
      // The winner links right after it creates: a taken name is waited on briefly (WINNER_WAIT_MS) for that link.
      const winner = async (): Promise<ExternalResult | undefined> => {
        for (let waited = 0; ; waited += WINNER_POLL_MS) {
          const now = await ports.read.idpLink(input.idpId, identity.subject);
          const user = now ? await ports.read.userFacts(now.userId) : undefined;
          if (user) return user.state === 'active' ? loginAs(user.id, false) : { kind: 'refused', reason: 'USER_NOT_ACTIVE' };
          if (waited >= WINNER_WAIT_MS) return undefined;
          await new Promise((r) => setTimeout(r, WINNER_POLL_MS));
        }
      };
      const userId = await createUser(ports, input, identity);
      if (typeof userId !== 'string') return (userId.refused === 'USERNAME_TAKEN' && (await winner())) || { kind: 'refused', reason: userId.refused };
      try {
        await ports.commands.linkAtLogin({ idpId: input.idpId, subject: identity.subject, userId, how: 'creation' });
      } catch (err) {
        if (!(err instanceof KeyholdError && err.reason === 'IDP_LINK_TAKEN')) throw err;
        return (await winner()) ?? { kind: 'refused', reason: 'IDP_NOT_FOUND' };
      }
      if (identity.emailVerified && identity.email) await markVerified(ports, input, userId, identity.email);
      return loginAs(userId, true);
    }
  }
}

/**
 * The address of a user created just in time, verified when the provider is trusted for that and the
 * upstream said so (ExternalIdentity.emailVerified): the provider's word, recorded as the creator's.
 */
async function markVerified(ports: ExternalPorts, input: ExternalInput, userId: string, email: string): Promise<void> {
  await ports.commands.setEmail({ caller: creatorFor(input.idpId, input.orgId) }, { userId, email, verification: { kind: 'verified', by: 'provider' } });
}

/** The just-in-time user: its profile from the upstream; refused when its user name is taken, or the profile lacks what a user needs (an address). */
async function createUser(ports: ExternalPorts, input: ExternalInput, identity: ExternalIdentity): Promise<string | { refused: 'USERNAME_TAKEN' | 'PROFILE_INCOMPLETE' }> {
  const username = identity.preferredUsername ?? identity.email ?? `${input.idpId}-${identity.subject}`;
  const given = identity.givenName ?? identity.name?.split(' ')[0] ?? username;
  const family = identity.familyName ?? (identity.name?.split(' ').slice(1).join(' ') || given);
  try {
    const { userId } = await ports.commands.addHumanUser(
      { caller: creatorFor(input.idpId, input.orgId) },
      { userId: '', orgId: input.orgId, username, profile: { givenName: given, familyName: family, displayName: identity.name ?? `${given} ${family}` }, email: identity.email ?? '' },
    );
    return userId;
  } catch (err) {
    if (err instanceof KeyholdError && err.reason === 'USERNAME_TAKEN') return { refused: 'USERNAME_TAKEN' };
    if (err instanceof KeyholdError && err.reason === 'INVALID_REQUEST') return { refused: 'PROFILE_INCOMPLETE' };
    throw err;
  }
}
