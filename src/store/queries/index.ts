// Read-model queries. Each takes the drizzle handle (or a transaction) first.
export { findInstance, isBootstrapped } from './instance.js';
export { findOrg } from './orgs.js';
export { findProject, listProjects } from './projects.js';
export { findUser, findUserByUsername } from './users.js';
export { findPatByHash, type PatWithUser } from './personal-access-tokens.js';
export { membershipsOfUser } from './memberships.js';
export { findApp, findAppByClientId, listApps } from './apps.js';
export { findU2f, listU2fOfUser, verifiedCredentialIdsOfUser } from './u2f-tokens.js';
