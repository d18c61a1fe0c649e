// The dispatcher: turns events into read-model statements, in event order, for
// every read model that handles each event type.
import type { EventTypeName } from '../../domain/events/index.js';
import type { SqlRunner, SqlStatement } from '../sql.js';
import { appKeysProjection } from './app-keys.js';
import { appsProjection } from './apps.js';
import { emailCodesProjection } from './email-codes.js';
import { identityProvidersProjection, idpLinksProjection } from './identity-providers.js';
import { instancesProjection } from './instances.js';
import { machineUsersProjection } from './machine-users.js';
import { oidcSessionsProjection } from './oidc-sessions.js';
import { loginPoliciesProjection } from './login-policies.js';
import { lockoutPoliciesProjection } from './lockout-policies.js';
import { membershipsProjection } from './memberships.js';
import { orgsProjection } from './orgs.js';
import { passkeysProjection, webauthnCredentialsProjection } from './passkeys.js';
import { personalAccessTokensProjection } from './personal-access-tokens.js';
import type { Handler, ProjectableEvent, Projection } from './projection.js';
import { projectGrantsProjection, projectRolesProjection, projectsProjection, userGrantsProjection } from './projects.js';
import { recoveryCodesProjection } from './recovery-codes.js';
import { u2fTokensProjection } from './u2f-tokens.js';
import { userMetadataProjection } from './user-metadata.js';
import { userTotpProjection } from './user-totp.js';
import { userSessionsProjection } from './user-sessions.js';
import { usersProjection } from './users.js';

export const projections: readonly Projection[] = [
  instancesProjection,
  orgsProjection,
  projectsProjection,
  projectRolesProjection,
  projectGrantsProjection,
  userGrantsProjection,
  usersProjection,
  membershipsProjection,
  personalAccessTokensProjection,
  userMetadataProjection,
  appsProjection,
  u2fTokensProjection,
  passkeysProjection,
  webauthnCredentialsProjection,
  machineUsersProjection,
  appKeysProjection,
  loginPoliciesProjection,
  lockoutPoliciesProjection,
  recoveryCodesProjection,
  userTotpProjection,
  oidcSessionsProjection,
  identityProvidersProjection,
  idpLinksProjection,
  userSessionsProjection,
  emailCodesProjection,
];

type AnyEvent = { [K in EventTypeName]: ProjectableEvent<K> }[EventTypeName];
type AnyHandler = (event: AnyEvent) => SqlStatement | undefined;

// Event type → its handlers, built once so dispatch is a map lookup.
const handlersByType = new Map<EventTypeName, AnyHandler[]>();
for (const projection of projections) {
  for (const [type, handler] of Object.entries(projection) as [EventTypeName, Handler<EventTypeName>][]) {
    const list = handlersByType.get(type) ?? [];
    list.push(handler as AnyHandler);
    handlersByType.set(type, list);
  }
}

/** The statements that apply `events` to the read models, in order; none has run yet. */
export function projectionStatements(events: readonly AnyEvent[]): SqlStatement[] {
  const statements: SqlStatement[] = [];
  for (const event of events) {
    for (const handler of handlersByType.get(event.type) ?? []) {
      const statement = handler(event);
      if (statement) statements.push(statement);
    }
  }
  return statements;
}

/** Apply `events` (e.g. stored events being replayed) to the read models, one statement after another. */
export async function project(tx: SqlRunner, events: readonly AnyEvent[]): Promise<void> {
  for (const statement of projectionStatements(events)) await tx.query(statement);
}
