// UpdateOIDCAppConfig: replaces every field of the OIDC configuration but the
// name, validated exactly as on create. The secret is never made here: a switch
// to BASIC/POST of an app without one answers that it is needed
// (RegenerateOIDCClientSecret makes it); a switch to NONE/PRIVATE_KEY_JWT drops
// the stored hash.
import { appDecider } from '../../domain/app/decider.js';
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { complianceProblems, validateOidcApp, type ComplianceProblem, type OidcAppInput } from '../../domain/oidc/index.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { isApiGuardian } from './app-api-access.js';
import { projectForAppCall } from '../../access/app-in-project.js';

export interface UpdateOidcConfigInput {
  projectId: string;
  appId: string;
  /** The configuration without its name (the app keeps its own). */
  app: Omit<OidcAppInput, 'name'>;
}

export interface UpdateOidcConfigResult {
  written: Written;
  compliance: ComplianceProblem[];
  /** The auth method needs a secret the app does not have yet. */
  clientSecretNeeded: boolean;
}

// Stands in for the name while the rest is validated; the decider keeps the app's own.
const NAME_UNCHANGED = 'unchanged';

export async function updateOidcConfig(ports: Ports, call: Call, input: UpdateOidcConfigInput): Promise<UpdateOidcConfigResult> {
  const result = validateOidcApp({ ...input.app, name: NAME_UNCHANGED });
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'project.app.write', result.ok ? [] : result.violations);
  if (!result.ok) throw invalidRequest(result.violations);
  const events = await runCommand(ports.events, { type: 'app', id: input.appId }, appDecider(input.appId), {
    kind: 'changeOidcConfig',
    projectId: project.id,
    config: result.config,
    actor: caller.userId,
    apiGuardian: isApiGuardian(caller, project),
  });
  const changed = events.find((e) => e.type === 'app.oidc.config.changed');
  const payload = changed?.type === 'app.oidc.config.changed' ? changed.payload : undefined;
  return {
    written: written(events, input.appId),
    compliance: payload ? complianceProblems(payload.config) : [],
    clientSecretNeeded: payload?.clientCredential === 'needed',
  };
}
