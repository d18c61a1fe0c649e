// Read-model queries. Each takes the drizzle handle (or a transaction) first.
export { findInstance, isBootstrapped } from './instance.js';
export { findOrg } from './orgs.js';
export { findLoginPolicy } from './login-policies.js';
export { findLockoutPolicy } from './lockout-policies.js';
export { unusedRecoveryCodes } from './recovery-codes.js';
export { appIdsOfProject, existingRoleKeys, findProject, grantIdsOfProject, listProjects, projectIdsOfOrg, projectRolesOfUser } from './projects.js';
export { findPasswordOf, findUser, findUserByUsername, findUsersByLoginName, userIdsOfOrg, type PasswordRow } from './users.js';
export { findPatByHash, type PatWithUser } from './personal-access-tokens.js';
export { membershipsOfUser } from './memberships.js';
export { searchMembers } from './members.js';
export { findApp, findAppByClientId, listApps } from './apps.js';
export { countExpiredRegistrations, deleteExpiredRegistrations, findReadyU2fByCredentialId, findU2f, listU2fOfUser, listU2fViewsOfUser, readyKeysByRpId, verifiedCredentialIdsOfUser } from './u2f-tokens.js';
export { listAppKeys, listPats, listU2fPage, searchApps, searchOrgs, searchProjectRoles, searchProjects, searchUserGrants, searchUsers } from './search.js';
export { searchEvents } from './events.js';
export { findMachineByClientId, type MachineClientRow } from './machine-users.js';
export { liveAppKeys, type AppKeyListedRow } from './app-keys.js';
export { allUserMetadata, findUserMetadata, searchUserMetadata } from './user-metadata.js';
