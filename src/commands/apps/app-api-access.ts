// SetAppAPIAccess: whether an app may obtain access tokens for Keyhold's own
// API (the scope urn:keyhold:iam:api:aud; src/server/oidc/api-audience.ts).
// Such a token acts as whoever signs in — the instance's owners too — so the
// app's org and project owners, who may create and edit it, may not decide
// this: only an instance-wide role holds app.api.access.write. Once an app is
// allowed, so are the writes that could re-point it (its decider's ApiGuard).
import { appDecider } from '../../domain/app/decider.js';
import { hasPermission } from '../../domain/identity/permissions.js';
import type { Call, Caller } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { projectForAppCall } from '../../access/app-in-project.js';

export async function setAppApiAccess(ports: Ports, call: Call, input: { projectId: string; appId: string; allowed: boolean }): Promise<{ written: Written }> {
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'app.api.access.write');
  const events = await runCommand(ports.events, { type: 'app', id: input.appId }, appDecider(input.appId), {
    kind: 'setApiAccess',
    projectId: project.id,
    allowed: input.allowed,
    actor: caller.userId,
  });
  return { written: written(events, input.appId) };
}

/** Whether the caller may change an app allowed Keyhold's API (the app decider's `apiGuardian`). */
export const isApiGuardian = (caller: Caller, project: { id: string; orgId: string }): boolean =>
  hasPermission(caller.memberships, 'app.api.access.write', { orgId: project.orgId, projectId: project.id });
