// AddOIDCApp (seed spec §2): a confidential or public OIDC client in a project.
// The hot path of the management API: no load (a new id), the project's owner
// from the lookups' cache, one append of two events.
import { appDecider } from '../../domain/app/decider.js';
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { complianceProblems, needsClientSecret, validateOidcApp, type ComplianceProblem, type OidcAppInput } from '../../domain/oidc/index.js';
import { authorize, orgContext, projectInOrg } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface AddOidcAppInput {
  projectId: string;
  app: OidcAppInput;
}

export interface AddOidcAppResult {
  appId: string;
  clientId: string;
  /** Shown this once; only for auth methods with a secret (BASIC, POST). */
  clientSecret?: string;
  written: Written;
  /** Design §6's compliance report of the stored configuration (unlocalized). */
  compliance: ComplianceProblem[];
}

export async function addOidcApp(ports: Ports, call: Call, input: AddOidcAppInput): Promise<AddOidcAppResult> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const result = validateOidcApp(input.app);
  const violations = requiredId('projectId', input.projectId);
  if (!result.ok) violations.push(...result.violations);
  if (violations.length || !result.ok) throw invalidRequest(violations);
  const config = result.config;
  const project = await projectInOrg(ports.lookups, input.projectId, orgId);
  authorize(caller, 'project.app.write', { orgId, projectId: project.id });

  const appId = ports.ids.newId();
  const clientId = ports.ids.newId();
  const secret = needsClientSecret(config.authMethodType) ? ports.secrets.clientSecret() : undefined;
  const events = await runCommand(
    ports.events,
    { type: 'app', id: appId },
    appDecider(appId),
    { kind: 'add', projectId: project.id, orgId, config, clientId, clientSecretHash: secret?.hash ?? null, actor: caller.userId },
    { creates: true, conflictMetadata: { projectId: project.id } },
  );
  return { appId, clientId, clientSecret: secret?.secret, written: written(events, appId), compliance: complianceProblems(config) };
}
