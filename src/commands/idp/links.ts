// Links of external identities to users. An administrator's AddIDPLink /
// RemoveIDPLink (and the user's own, on its account) follow the credentials'
// rule: the user itself, or user.credential.write in the user's org with
// containment, since a link is a way into the account. Adding one names an
// upstream subject, which proves nothing: only an administrator adds one (never
// the user for itself), and one at the instance's provider only an instance
// administrator (iam.idp.write): its identities are every organization's. The login links only
// after the person signed in to the account with its own factors (`login`),
// or for a user it just created (`creation`); it never links by an address.
// One identity, one user: the link aggregate's id is derived from (provider,
// subject), so concurrent links meet on its sequence and one wins.
import { authorize, userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { linkDecider, linkIdOf, type LinkCommand, type LinkState } from '../../domain/idp/link-decider.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface LinkInput {
  userId: string;
  idpId: string;
  /** The upstream's id of the person (ZITADEL's userId of the IDP link). */
  subject: string;
}

const MAX_SUBJECT = 255;

function inputViolations(input: LinkInput) {
  const v = [...requiredId('userId', String(input.userId ?? '')), ...requiredId('idpId', String(input.idpId ?? ''))];
  if (typeof input.subject !== 'string' || !input.subject || input.subject.length > MAX_SUBJECT || /[\u0000-\u001f]/.test(input.subject)) {
    v.push(violation('idpLink.userId', { en: `is required: the upstream's id of the person, at most ${MAX_SUBJECT} characters`, de: `ist erforderlich: die Kennung der Person beim Anbieter, höchstens ${MAX_SUBJECT} Zeichen` }));
  }
  return v;
}

/** The provider, when the user's org's apps offer it (the instance's, or the user's org's own); else 404. */
async function offeredProvider(ports: Ports, idpId: string, orgId: string) {
  const provider = await ports.lookups.identityProvider(idpId);
  if (!provider || (provider.orgId !== undefined && provider.orgId !== orgId)) throw new KeyholdError('IDP_NOT_FOUND', { idpId });
  return provider;
}

/** Links (provider, subject) to `userId`: by an administrator (`admin`), or at the login (`login`, `creation`). */
async function link(ports: Ports, input: LinkInput & { orgId: string; how: 'admin' | 'login' | 'creation'; actor: string }): Promise<Written> {
  await offeredProvider(ports, input.idpId, input.orgId);
  const linkId = linkIdOf(input.idpId, input.subject);
  const events = await runCommand(ports.events, { type: 'idplink', id: linkId }, linkDecider(linkId), async (state: LinkState): Promise<LinkCommand> => ({
    kind: 'add',
    idpId: input.idpId,
    subject: input.subject,
    userId: input.userId,
    orgId: input.orgId,
    how: input.how,
    actor: input.actor,
    // Linked, by the link's own events, to a user that was removed since: the link is free. Asked of
    // the link's events, not of the read model, which drops a removed user's links with its rows.
    linkedUserGone: state.userId !== undefined && state.userId !== input.userId && !(await ports.lookups.userFacts(state.userId)),
  }));
  // Already this user's: nothing written, the link as it stands answered (linking again changes nothing).
  return written(events.length > 0 ? events : await ports.events.load('idplink', linkId), linkId);
}

/** AddIDPLink (user service v2). */
export async function addIdpLink(ports: Ports, { caller }: Call, input: LinkInput): Promise<{ written: Written }> {
  const violations = inputViolations(input);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  // Naming an upstream subject proves nothing (GitHub's ids are public): a person links its own account by
  // signing in with the provider, never by naming a subject.
  if (caller.userId === user.id) throw new KeyholdError('PERMISSION_DENIED', { permission: 'user.credential.write' });
  const facts = await ports.lookups.userFacts(user.id);
  if (!facts) throw new KeyholdError('USER_NOT_FOUND', { userId: user.id });
  if (facts.kind !== 'human') throw new KeyholdError('USER_NOT_HUMAN', { userId: user.id });
  // An identity at the instance's provider is everybody's to claim: only an instance administrator links one.
  const provider = await offeredProvider(ports, input.idpId, user.orgId);
  if (provider.orgId === undefined) authorize(caller, 'iam.idp.write', {});
  return { written: await link(ports, { ...input, orgId: user.orgId, how: 'admin', actor: caller.userId }) };
}

/** RemoveIDPLink (user service v2), RemoveHumanLinkedIDP (management v1). */
export async function removeIdpLink(ports: Ports, { caller }: Call, input: LinkInput): Promise<{ written: Written }> {
  const violations = inputViolations(input);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const linkId = linkIdOf(input.idpId, input.subject);
  const events = await runCommand(ports.events, { type: 'idplink', id: linkId }, linkDecider(linkId), { kind: 'remove', idpId: input.idpId, subject: input.subject, userId: user.id, actor: caller.userId });
  return { written: written(events, linkId) };
}

/** The login's link: after the person signed in to `userId` with its own factors, or for the user it just created. */
export async function linkAtLogin(ports: Ports, input: LinkInput & { how: 'login' | 'creation' }): Promise<void> {
  const facts = await ports.lookups.userFacts(input.userId);
  if (!facts || facts.kind !== 'human') throw new KeyholdError('USER_NOT_FOUND', { userId: input.userId });
  // Decided again when the link is made: linking switched off since the identity came back links nothing.
  const provider = await offeredProvider(ports, input.idpId, facts.orgId);
  if (input.how === 'login' && !provider.settings.options.isLinkingAllowed) throw new KeyholdError('IDP_LINK_REQUIRED', { idpId: input.idpId });
  await link(ports, { ...input, orgId: facts.orgId, actor: input.userId });
}

/** A sign-in through the provider as the linked user: recorded with its amr; refused when the provider or the link is gone meanwhile. */
export async function useIdpLink(ports: Ports, input: LinkInput & { clientId: string; amr: string[] }): Promise<void> {
  // A removed provider's links stay in its events but sign nobody in.
  if (!(await ports.lookups.identityProvider(input.idpId))) throw new KeyholdError('IDP_NOT_FOUND', { idpId: input.idpId });
  const linkId = linkIdOf(input.idpId, input.subject);
  await runCommand(ports.events, { type: 'idplink', id: linkId }, linkDecider(linkId), { kind: 'use', idpId: input.idpId, userId: input.userId, clientId: input.clientId, amr: input.amr, actor: input.userId });
}
