// The read model (src/queries/read-model.ts, and the commands' Lookups) over
// the projections' tables. Which finder is plain prepared SQL (./sql.ts: the
// hot paths — every AddOIDCApp, VerifyU2FRegistration and token resolution)
// and which is drizzle is decided here and nowhere else.
import type { U2fFacts, UserFacts } from '../commands/ports.js';
import type { AppView, ClientAppView, ReadModel } from '../queries/read-model.js';
import type { Database } from './database.js';
import { NO_OBSERVER, reportingFailures, type StoreObserver } from './observer.js';
import * as q from './queries/index.js';

/**
 * Which org owns a user. An immutable fact — an id is never reused and a user
 * never moves to another org — so once read it is kept in memory and the read
 * model is asked only on a miss (VerifyU2FRegistration asks on every call;
 * bench/results). Only positive answers are kept: an unknown id may be created
 * a moment later. A removed user is still known here: commands that must not
 * act on one ask the read model itself (access/access.ts visibleLiveUser).
 * A project's owner is not kept: RemoveProject ends a project, and a kept
 * owner would let another process add apps or grants to it.
 */
function ownerCache(limit: number) {
  const known = new Map<string, string>();
  return async (key: string, read: () => Promise<{ orgId: string } | undefined>): Promise<string | undefined> => {
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const row = await read();
    if (!row) return undefined;
    if (known.size >= limit) known.clear();
    known.set(key, row.orgId);
    return row.orgId;
  };
}

/** Owner entries before the cache starts over (an id and an org id: ~150 bytes each). */
export const OWNER_CACHE_LIMIT = 100_000;

/** `observer` hears of the reads that fail (./observer.ts). */
export function createReadModel(database: Pick<Database, 'db' | 'sql'>, observer: StoreObserver = NO_OBSERVER): ReadModel {
  const { db, sql } = database;
  const owner = ownerCache(OWNER_CACHE_LIMIT);
  const user = (userId: string) => q.findUser(sql, userId);
  return reportingFailures<ReadModel>({
    orgExists: async (orgId) => (await q.findOrg(sql, orgId)) !== undefined,
    ownerOfProject: async (projectId) => (await q.findProject(sql, projectId))?.orgId,
    ownerOfUser: (userId) => owner(`user/${userId}`, () => user(userId)),
    membershipsOf: (userId) => q.membershipsOfUser(db, userId),
    userFacts: (userId): Promise<UserFacts | undefined> => user(userId),
    u2fOf: (userId): Promise<U2fFacts[]> => q.listU2fOfUser(db, userId),
    u2fByCredentialId: (credentialId) => q.findReadyU2fByCredentialId(db, credentialId),
    passkeysOf: (userId) => q.listPasskeysOfUser(db, userId),
    userSessions: (userId) => q.listUserSessions(sql, userId),
    webauthnCredential: (credentialId) => q.findWebauthnCredential(sql, credentialId),
    passkeysPage: (userId, page) => q.listPasskeyPage(db, userId, page),
    existingRoleKeys: (projectId, roleKeys) => q.existingRoleKeys(db, projectId, roleKeys),
    projectRolesOfUser: (userId, projectId) => q.projectRolesOfUser(sql, userId, projectId),
    grantIdsOfProject: (projectId, roleKey) => q.grantIdsOfProject(db, projectId, roleKey),
    appIdsOfProject: (projectId) => q.appIdsOfProject(db, projectId),
    orgStateOf: async (orgId) => (await q.findOrg(sql, orgId))?.state as 'active' | 'inactive' | undefined,
    projectGrantFor: (projectId, grantedOrgId) => q.findProjectGrantFor(sql, projectId, grantedOrgId),
    searchProjectGrants: (search, page) => q.searchProjectGrants(db, search, page),
    isProjectGrantedTo: (projectId, orgId) => q.isProjectGrantedTo(sql, projectId, orgId),
    userIdsOfOrg: (orgId) => q.userIdsOfOrg(db, orgId),
    projectIdsOfOrg: (orgId) => q.projectIdsOfOrg(db, orgId),
    instanceOwnerIds: () => q.instanceOwnerIds(db),

    project: (projectId) => q.findProject(sql, projectId),
    projectsOf: (orgId) => q.listProjects(db, orgId),
    app: async (appId) => (await q.findApp(db, appId)) as AppView | undefined,
    appsOf: async (projectId) => (await q.listApps(db, projectId)) as AppView[],
    appByClientId: async (clientId) => (await q.findAppByClientId(sql, clientId)) as ClientAppView | undefined,
    user,
    usersByLoginName: (username, orgId, limit) => q.findUsersByLoginName(sql, username, orgId, limit),
    passwordOf: (userId) => q.findPasswordOf(sql, userId),
    u2fTokensOf: (userId) => q.listU2fViewsOfUser(sql, userId),
    secondFactorsOf: (userId) => q.secondFactorsOfUser(sql, userId),
    u2fTokensPage: (userId, page) => q.listU2fPage(db, userId, page),
    patByHash: (tokenHash) => q.findPatByHash(db, tokenHash),
    isBootstrapped: () => q.isBootstrapped(db),
    defaultOrgId: async () => (await q.findInstance(db))?.defaultOrgId ?? undefined,
    searchApps: (projectId, names, page, maxBytes) => q.searchApps(db, projectId, names, page, maxBytes),
    searchProjectRoles: (projectId, filters, page) => q.searchProjectRoles(db, projectId, filters, page),
    searchProjects: (orgId, projectIds, names, page) => q.searchProjects(db, orgId, projectIds, names, page),
    searchUsers: (search, page) => q.searchUsers(db, search, page),
    searchUserGrants: (search, page, maxBytes) => q.searchUserGrants(db, search, page, maxBytes),
    searchOrgs: (orgIds, names, ids, page) => q.searchOrgs(db, orgIds, names, ids, page),
    patsOf: (userId, page) => q.listPats(db, userId, page),
    membersOf: (scopeType, scopeId, userIds, page) => q.searchMembers(db, scopeType, scopeId, userIds, page),
    searchUserMetadata: (userId, keys, page) => q.searchUserMetadata(db, userId, keys, page),
    userMetadataEntry: (userId, key) => q.findUserMetadata(db, userId, key),
    userMetadataOf: (userId) => q.allUserMetadata(db, userId),
    org: (orgId) => q.findOrg(sql, orgId),
    loginPolicyOf: (orgId) => q.findLoginPolicy(sql, orgId),
    secondFactorRequired: async (orgId) => (await q.findLoginPolicy(sql, orgId))?.forceMfa ?? false,
    lockoutPolicyOf: (orgId) => q.findLockoutPolicy(sql, orgId),
    maxPasswordAttemptsOf: async (orgId) => (await q.findLockoutPolicy(sql, orgId))?.maxPasswordAttempts ?? 0,
    unusedRecoveryCodesOf: (userId) => q.unusedRecoveryCodes(sql, userId),
    totpOf: (userId) => q.findUserTotp(sql, userId),
    identityProvider: (idpId) => q.findIdp(sql, idpId),
    idpLink: async (idpId, subject) => {
      const link = await q.findIdpLink(sql, idpId, subject);
      return link ? { userId: link.userId, orgId: link.orgId } : undefined;
    },
    identityProviders: (orgId) => q.listIdps(sql, orgId),
    identityProvidersOffered: (orgId) => q.idpsOffered(sql, orgId),
    idpLinksOf: (userId) => q.listIdpLinksOfUser(sql, userId),
    events: (search) => q.searchEvents(db, search),
    machineByClientId: (clientId) => q.findMachineByClientId(sql, clientId),
    liveAppKeys: (appId, now) => q.liveAppKeys(db, appId, now),
    appKeysOf: (appId, page) => q.listAppKeys(db, appId, page),
  }, observer);
}

/** Deletes read-model rows of registrations expired before `before`, at most `limit`, and counts them (server/housekeeping.ts). */
export function expiredRegistrationSweeper(
  database: Pick<Database, 'sql'>,
  observer: StoreObserver = NO_OBSERVER,
): { deleteExpired: (before: Date, limit: number) => Promise<number>; countExpired: (before: Date, limit: number) => Promise<number> } {
  return reportingFailures(
    {
      deleteExpired: (before: Date, limit: number) => q.deleteExpiredRegistrations(database.sql, before, limit),
      countExpired: (before: Date, limit: number) => q.countExpiredRegistrations(database.sql, before, limit),
    },
    observer,
  );
}
