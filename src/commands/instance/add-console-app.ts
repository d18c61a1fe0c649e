// The console's own app: a `Keyhold` project in the first org with a
// USER_AGENT app (auth NONE + PKCE) whose redirect URI is `<issuer>/console/`,
// so the console signs in through Keyhold's login. Made at every start when
// missing (src/server/bootstrap.ts ensureConsoleApp), on new instances and on
// those bootstrapped before it existed. Its ids are fixed: the console knows
// its client id without asking, and two processes making it at once collide on
// the project id (one commits, the other meets ID_TAKEN). The console calls
// Keyhold's API with its users' tokens, so its app is allowed the API
// audience (allowConsoleApiAccess) — once: an administrator may refuse it later.
import type { StoredEvent } from '../../domain/events/index.js';
import { appDecider } from '../../domain/app/decider.js';
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { validateOidcApp } from '../../domain/oidc/index.js';
import { projectDecider } from '../../domain/project/decider.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';

export const CONSOLE_PROJECT_ID = 'keyhold';
export const CONSOLE_APP_ID = 'keyhold-console';
/** The console's OAuth client id (console/src/oidc.ts uses the same). */
export const CONSOLE_CLIENT_ID = 'keyhold-console';

/** The console app's redirect (and post-logout) URI for an issuer. */
export const consoleRedirectUri = (issuer: string) => `${issuer.replace(/\/+$/, '')}/console/`;

export function addConsoleApp(ports: Pick<Ports, 'events'>, input: { orgId: string; issuer: string; actor: string }): Promise<StoredEvent[]> {
  const uri = consoleRedirectUri(input.issuer);
  const result = validateOidcApp({
    name: 'Console',
    redirectUris: [uri],
    postLogoutRedirectUris: [uri],
    responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
    appType: 'OIDC_APP_TYPE_USER_AGENT',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
    version: 'OIDC_VERSION_1_0',
    devMode: false,
    accessTokenType: 'OIDC_TOKEN_TYPE_BEARER',
    accessTokenRoleAssertion: false,
    idTokenRoleAssertion: false,
    idTokenUserinfoAssertion: false,
    additionalOrigins: [],
    skipNativeAppSuccessPage: false,
    backChannelLogoutUri: '',
  });
  // Only a malformed issuer can make this invalid; the start then fails naming the problem.
  if (!result.ok) throw invalidRequest(result.violations);
  return runCommands(ports.events, [
    target(
      { type: 'project', id: CONSOLE_PROJECT_ID },
      projectDecider(CONSOLE_PROJECT_ID),
      { kind: 'add', orgId: input.orgId, name: 'Keyhold', projectRoleCheck: false, hasProjectCheck: false, actor: input.actor },
      { creates: true },
    ),
    target(
      { type: 'app', id: CONSOLE_APP_ID },
      appDecider(CONSOLE_APP_ID),
      { kind: 'add', projectId: CONSOLE_PROJECT_ID, orgId: input.orgId, config: result.config, clientId: CONSOLE_CLIENT_ID, clientSecretHash: null, actor: input.actor },
      { creates: true },
    ),
  ]);
}

/**
 * Allows the console's app to obtain tokens for Keyhold's API unless that was
 * ever decided (SetAppAPIAccess): on a new instance and on one from before the
 * setting existed, without undoing an administrator's later refusal.
 */
export function allowConsoleApiAccess(ports: Pick<Ports, 'events'>, input: { projectId: string }): Promise<StoredEvent[]> {
  return runCommands(ports.events, [
    target({ type: 'app', id: CONSOLE_APP_ID }, appDecider(CONSOLE_APP_ID), {
      kind: 'setApiAccess',
      projectId: input.projectId,
      allowed: true,
      actor: 'keyhold',
      unlessDecided: true,
    }),
  ]);
}
