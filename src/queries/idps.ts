// Identity providers and links as the API lists them. Providers: those of one
// scope (the instance's under iam.idp.read, an org's own under org.idp.read in
// the org the call acts in; ../access/idp-scope.ts), oldest first; a provider
// of another scope is 404. A scope holds few providers, so a page is cut from
// the whole list. Links: the user itself, or user.read in the user's org (a
// user the caller does not see is 404, as everywhere).
import { authorize, visibleUser } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { idpScopeOf, type IdpScope } from '../access/idp-scope.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { pageOf, type Listed } from '../domain/lists.js';
import type { SentPage } from './lists.js';
import type { IdpView, ReadModel } from './read-model.js';

export type IdpLinkView = Awaited<ReturnType<ReadModel['idpLinksOf']>>[number];

function pageFrom<T>(all: readonly T[], sent: SentPage | undefined, ascByDefault: boolean): Listed<T> {
  const page = sent ? pageOf(sent) : { ...pageOf(undefined), asc: ascByDefault };
  const ordered = page.asc ? [...all] : [...all].reverse();
  return { items: ordered.slice(page.offset, page.offset + page.limit), total: all.length, processedSequence: 0n, at: new Date() };
}

export async function listProviders(read: ReadModel, call: Call, input: IdpScope & { page?: SentPage }): Promise<Listed<IdpView>> {
  const { orgId } = await idpScopeOf(read, call, input, 'read');
  return pageFrom(await read.identityProviders(orgId), input.page, true);
}

export async function getProvider(read: ReadModel, call: Call, input: IdpScope & { idpId: string }): Promise<IdpView> {
  const violations = requiredId('id', input.idpId);
  if (violations.length) throw invalidRequest(violations);
  const { orgId } = await idpScopeOf(read, call, input, 'read');
  const found = (await read.identityProviders(orgId)).find((p) => p.idpId === input.idpId);
  if (!found) throw new KeyholdError('IDP_NOT_FOUND', { idpId: input.idpId });
  return found;
}

export async function listIdpLinks(read: ReadModel, { caller }: Call, input: { userId: string; page?: SentPage }): Promise<Listed<IdpLinkView>> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  if (input.userId !== caller.userId) {
    const user = await visibleUser(read, caller, input.userId);
    authorize(caller, 'user.read', { orgId: user.orgId });
  }
  return pageFrom(await read.idpLinksOf(input.userId), input.page, true);
}
