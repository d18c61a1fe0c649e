// Every read Keyhold offers, bound to the read model. The API calls these to
// read; authorization is the same as the commands' (src/access/access.ts).
import type { Call } from '../access/caller.js';
import type { Clock } from '../domain/clock.js';
import { getApp } from './apps.js';
import { listApps, listOrganizations, listProjectRoles, listProjects, listUsers, type ListUsersInput, type SentPage } from './lists.js';
import { getProject } from './projects.js';
import { getProvider, listIdpLinks, listProviders } from './idps.js';
import type { IdpScope } from '../access/idp-scope.js';
import { listPats } from './pats.js';
import { listOrgMembers, listProjectMembers, type MemberListInput } from './members.js';
import { listUserGrants, type ListUserGrantsInput } from './user-grants.js';
import { getProjectGrant, listGrantedProjects, listProjectGrants, type ProjectGrantListInput } from './project-grants.js';
import { getUserMetadata, listUserMetadata } from './user-metadata.js';
import { listAppKeys } from './app-keys.js';
import { listEvents, type ListEventsInput } from './events.js';
import { getMyOrganization, getOrganization } from './orgs.js';
import { getLoginPolicy, loginFactorsOf } from './login-policy.js';
import { getLockoutPolicy } from './lockout-policy.js';
import type { SentText } from '../domain/lists.js';
import type { ReadModel } from './read-model.js';
import { getUser, listPasskeys, listU2fTokens, myUser, unusedRecoveryCodes } from './users.js';
import { listUserSessionsPage } from './user-sessions.js';

export type { AppView, OrgView, ProjectGrantView, ProjectView, ReadModel, U2fView, UserGrantView, UserView } from './read-model.js';
export type { ListedPasskey, ListedU2f } from './users.js';
export type { LoginFactors } from './login-policy.js';

export function createQueries(read: ReadModel, clock: Clock) {
  return {
    getProject: (call: Call, input: { projectId: string }) => getProject(read, call, input),
    listProjects: (call: Call, input: { page?: SentPage; names: SentText[]; queryCount: number }) => listProjects(read, call, input),
    getApp: (call: Call, input: { projectId: string; appId: string }) => getApp(read, call, input),
    listApps: (call: Call, input: { projectId: string; page?: SentPage; names: SentText[]; queryCount: number }) => listApps(read, call, input),
    listProjectRoles: (call: Call, input: { projectId: string; page?: SentPage; keys: SentText[]; displayNames: SentText[]; queryCount: number }) =>
      listProjectRoles(read, call, input),
    listUsers: (call: Call, input: ListUsersInput) => listUsers(read, call, input),
    getOrganization: (call: Call, input: { orgId: string }) => getOrganization(read, call, input),
    getMyOrganization: (call: Call) => getMyOrganization(read, call),
    listEvents: (call: Call, input: ListEventsInput) => listEvents(read, call, input),
    listPats: (call: Call, input: { userId: string; page?: SentPage }) => listPats(read, call, input),
    listOrgMembers: (call: Call, input: MemberListInput) => listOrgMembers(read, call, input),
    listProjectMembers: (call: Call, input: MemberListInput & { projectId: string }) => listProjectMembers(read, call, input),
    listUserGrants: (call: Call, input: ListUserGrantsInput) => listUserGrants(read, call, input),
    listProjectGrants: (call: Call, input: ProjectGrantListInput & { projectId: string }) => listProjectGrants(read, call, input),
    getProjectGrant: (call: Call, input: { projectId: string; grantId: string }) => getProjectGrant(read, call, input),
    listGrantedProjects: (call: Call, input: ProjectGrantListInput) => listGrantedProjects(read, call, input),
    listUserMetadata: (call: Call, input: { userId: string; page?: SentPage; keys: SentText[]; queryCount: number }) => listUserMetadata(read, call, input),
    getUserMetadata: (call: Call, input: { userId: string; key: string }) => getUserMetadata(read, call, input),
    listAppKeys: (call: Call, input: { projectId: string; appId: string; page?: SentPage }) => listAppKeys(read, call, input),
    listOrganizations: (call: Call, input: { page?: SentPage; names: SentText[]; ids: string[]; queryCount: number }) =>
      listOrganizations(read, call, input),
    getUser: (call: Call, input: { userId: string }) => getUser(read, call, input),
    listU2fTokens: (call: Call, input: { userId: string; page?: SentPage }) => listU2fTokens(read, call, { ...input, now: clock.now() }),
    listUserSessions: (call: Call, input: { userId: string; page?: SentPage }) => listUserSessionsPage(read, call.caller, input),
    listPasskeys: (call: Call, input: { userId: string; page?: SentPage }) => listPasskeys(read, call, { ...input, now: clock.now() }),
    /** The login's question (no caller): which first factors the org allows, and whether it requires a second factor. */
    loginFactorsOf: (orgId: string) => loginFactorsOf(read, orgId),
    unusedRecoveryCodes: (call: Call, input: { userId: string }) => unusedRecoveryCodes(read, call, input),
    myUser: (call: Call) => myUser(read, call),
    getLoginPolicy: (call: Call) => getLoginPolicy(read, call),
    getLockoutPolicy: (call: Call) => getLockoutPolicy(read, call),
    listProviders: (call: Call, input: IdpScope & { page?: SentPage }) => listProviders(read, call, input),
    getProvider: (call: Call, input: IdpScope & { idpId: string }) => getProvider(read, call, input),
    listIdpLinks: (call: Call, input: { userId: string; page?: SentPage }) => listIdpLinks(read, call, input),
  };
}

export type Queries = ReturnType<typeof createQueries>;
