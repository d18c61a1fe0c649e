// Who may introspect which token (features.introspection.allowedPolicy; a
// token the policy refuses is answered `{active: false}`, as an unknown one).
// A token's audience is the client it was issued to and that client's
// project: ZITADEL's tokens carry the project in `aud` and any app of the
// project may introspect them (an API app beside its web app), and so here —
// JWT access tokens carry `aud` [clientId, projectId] for the same reason:
//
// | who asks                                | may introspect                               |
// |-----------------------------------------|----------------------------------------------|
// | the client the token was issued to      | it                                           |
// | a confidential app of the same project  | it (not a machine user's token)              |
// | a public app (auth method NONE)         | only its own tokens                          |
// | a machine user (client credentials)     | only its own tokens                          |
// | anyone else (another project, org…)     | nothing: `active: false`                     |
//
// And a token is active only while what it stands on is: the client it was
// issued to still a client (an app not deactivated or removed, a machine user
// active with its secret — the adapter's Client.find says so), its user active.
// The library checks the token itself, its expiry and its grant.
//
// The hook also sees the token before the answer is built from it: with the
// roles scope granted, the user's current project roles go into the answer
// (ZITADEL: at introspection always with that scope).
//
// Revocation (features.revocation.allowedPolicy): only the client the token
// was issued to; anyone else gets the answer an unknown token gets (200,
// nothing revoked). The library's default tells another confidential client
// that the token exists (400 invalid_request): an oracle across tenants.
import { userIsLive, type ReadModel } from '../../queries/read-model.js';
import { ROLES_CLAIM, ROLES_SCOPE, type RolesOf } from './account.js';
import { machineUserOf } from './machine-clients.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const projectOf = (client: Any): string | undefined => client?.keyhold_project_id ?? client?.keyholdProjectId;

/** Whether `asking` may learn about a token issued to `owner` (the table above). */
function mayIntrospect(asking: Any, owner: Any): boolean {
  if (asking.clientId === owner.clientId) return true;
  if (asking.clientAuthMethod === 'none' || machineUserOf(asking) || machineUserOf(owner)) return false;
  const project = projectOf(asking);
  return project !== undefined && project === projectOf(owner);
}

/** Revocation's allowedPolicy: the token's own client only, and no telling anyone else (see above). */
export async function revocationPolicy(_ctx: Any, client: Any, token: Any): Promise<boolean> {
  return token.clientId === client.clientId;
}

export function introspectionPolicy(deps: { read: Pick<ReadModel, 'user'>; rolesOf: RolesOf; mayUseClient: (userId: string, clientId: string) => Promise<boolean> }) {
  return async function allowedPolicy(ctx: Any, client: Any, token: Any): Promise<boolean> {
    const owner = token.clientId === client.clientId ? client : await ctx.oidc.provider.Client.find(token.clientId);
    if (!owner || !mayIntrospect(client, owner)) return false;
    if (token.accountId) {
      const user = await deps.read.user(token.accountId);
      if (!userIsLive(user)) return false;
    }
    const scopes = new Set(String(token.scope ?? '').split(' '));
    const projectId = projectOf(owner);
    // A user who may no longer log in to the project (its login checks) holds no active token of it.
    if (token.accountId && projectId && !(await deps.mayUseClient(token.accountId, owner.clientId))) return false;
    if (token.accountId && scopes.has(ROLES_SCOPE) && projectId) {
      const roles = await deps.rolesOf(token.accountId, projectId);
      if (Object.keys(roles).length > 0) token.extra = { ...token.extra, [ROLES_CLAIM]: roles };
    }
    return true;
  };
}
