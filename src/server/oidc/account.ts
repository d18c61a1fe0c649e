// Accounts of the OpenID Provider: users of the read model, with the standard
// claims (preferred_username, name, given_name, family_name, email,
// email_verified, locale, updated_at), the project roles claim and the user's
// metadata claim.
import { errors } from 'oidc-provider';
import { userIsLive, type ReadModel } from '../../queries/read-model.js';
import { METADATA_CLAIM, METADATA_SCOPE, ROLES_CLAIM, ROLES_SCOPE } from '../../domain/oidc/scope-names.js';
import { personalName } from '../../domain/user/display-name.js';

export { METADATA_CLAIM, METADATA_SCOPE, ROLES_CLAIM, ROLES_SCOPE };

/** What an account is read from: the user, and its metadata when the scope asks for it. */
export type AccountRead = Pick<ReadModel, 'user' | 'userMetadataOf'>;

export type ProjectRoles = Record<string, Record<string, string>>;
/** The user's roles on a project, shaped as the claim (from the project grants). */
export type RolesOf = (userId: string, projectId: string) => Promise<ProjectRoles>;
/** Whether the user may still use the app with this client id (its project's login checks; queries/login-access.ts mayUseProject). */
export type MayUseClient = (userId: string, clientId: string) => Promise<boolean>;

/** Nobody has any roles (Keyhold itself reads them from the project grants, start.ts). */
export const noRoles: RolesOf = async () => ({});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

// The claims an ID token carries only with idTokenUserinfoAssertion when an access token is issued too (userinfo has them).
const PROFILE_CLAIMS = ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'updated_at', 'email', 'email_verified', METADATA_CLAIM];

const extra = (client: Any, name: string): Any => client?.[name] ?? client?.[name.replace(/_([a-z])/g, (_m: string, c: string) => c.toUpperCase())];

/**
 * The provider's findAccount. Where a token or code names the account, no
 * account makes the library refuse it. Where the browser's session names it
 * (an authorization request) the library would carry the session on without
 * an account and fail (500): a stored session of a user no longer active is
 * ended before (adapter.ts), so what remains is a login that finished as the
 * user was locked or deactivated — the app is told access_denied.
 */
export async function findAccount(ctx: Any, id: string, token: unknown, read: AccountRead, rolesOf: RolesOf, mayUseClient: MayUseClient) {
  const account = await accountClaims(ctx, id, read, rolesOf);
  // A code, a refresh token or an access token is used only while the user may still log in to
  // its app's project: a project's login checks hold for the tokens given before, not only at login.
  const projectId = token !== undefined ? extra(ctx?.oidc?.client, 'keyhold_project_id') : undefined;
  if (account && typeof projectId === 'string' && !(await mayUseClient(id, ctx.oidc.client.clientId))) return undefined;
  if (!account && token === undefined && ctx?.oidc?.session?.accountId === id) throw new errors.AccessDenied('the account is locked or deactivated');
  return account;
}

export async function accountClaims(ctx: Any, id: string, read: AccountRead, rolesOf: RolesOf) {
  const user = await read.user(id);
  // A deactivated or locked user, or one of a deactivated org, is no account: no token, refresh or userinfo for it
  // (LockUser, DeactivateUser, DeactivateOrg).
  if (!user || user.kind !== 'human' || !userIsLive(user)) return undefined;
  return {
    accountId: user.id,
    async claims(use: 'id_token' | 'userinfo', scope: string) {
      const scopes = new Set(scope.split(' '));
      const client = ctx?.oidc?.client;
      const name = personalName(user);
      const claims: Record<string, unknown> = {
        sub: user.id,
        preferred_username: user.username,
        name,
        given_name: user.givenName ?? undefined,
        family_name: user.familyName ?? undefined,
        updated_at: Math.floor(user.changedAt.getTime() / 1000),
        email: user.email ?? undefined,
        // True once the address was verified (its code, an administrator, a trusted provider) and not changed since.
        email_verified: user.email ? Boolean(user.emailVerified) : undefined,
      };
      if (scopes.has(METADATA_SCOPE)) {
        const entries = await read.userMetadataOf(user.id);
        if (entries.length > 0) claims[METADATA_CLAIM] = Object.fromEntries(entries.map((e) => [e.key, e.value]));
      }
      if (use === 'id_token') {
        // idTokenUserinfoAssertion: when an access token is issued too, profile and email claims go into the ID token only if set.
        const responseType: string = ctx?.oidc?.params?.response_type ?? '';
        const accessTokenIssued = ctx?.oidc?.route === 'token' || responseType.split(' ').includes('token') || responseType.split(' ').includes('code');
        if (accessTokenIssued && !extra(client, 'keyhold_id_token_userinfo_assertion')) {
          for (const c of PROFILE_CLAIMS) delete claims[c];
        }
      }
      const projectId = extra(client, 'keyhold_project_id');
      const roleAsserted = use === 'userinfo' ? scopes.has(ROLES_SCOPE) : scopes.has(ROLES_SCOPE) || extra(client, 'keyhold_id_token_role_assertion');
      if (projectId && roleAsserted) {
        const roles = await rolesOf(user.id, projectId);
        if (Object.keys(roles).length > 0) claims[ROLES_CLAIM] = roles;
      }
      return claims;
    },
  };
}
