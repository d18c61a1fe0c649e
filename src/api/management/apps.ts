// AddOIDCApp and the app lifecycle: GetAppByID, ListApps,
// RegenerateOIDCClientSecret, RemoveApp.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import { AppState, type AppSchema } from '../../../gen/keyhold/management/v1/app_pb.js';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { appDecider } from '../../domain/apps/decider.js';
import { invalidRequest, KeyholdError, type FieldViolation } from '../../domain/errors/keyhold-error.js';
import { newId } from '../../domain/ids.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import type { Language } from '../../domain/i18n/language.js';
import {
  complianceProblems,
  describeViolation,
  generateClientSecret,
  hashClientSecret,
  localizeCompliance,
  needsClientSecret,
  validateOidcApp,
  type OidcConfig,
} from '../../domain/oidc/index.js';
import { findApp, listApps } from '../../store/queries/index.js';
import { appendNew, runCommand } from '../../store/run-command.js';
import type { AppRow } from '../../store/schema.js';
import { authorize, orgContext } from '../access.js';
import { languageOf, type Deps } from '../context.js';
import { readDetails, writeDetails } from '../details.js';
import { mapConflicts } from '../unique-constraints.js';
import { projectInOrg } from './projects.js';
import { oidcConfigMessage, oidcInputOf } from './oidc-convert.js';

type Impl = ServiceImpl<typeof ManagementService>;

function appMessage(app: AppRow, lang: Language): MessageInitShape<typeof AppSchema> {
  return {
    id: app.id,
    details: readDetails(app),
    state: AppState.ACTIVE,
    name: app.name,
    oidcConfig: app.config ? oidcConfigMessage(app.config as OidcConfig, app.clientId ?? '', lang) : undefined,
  };
}

/** The app if it belongs to this project; otherwise 404. */
async function appInProject(deps: Deps, appId: string, projectId: string): Promise<AppRow> {
  const app = await findApp(deps.database.db, appId);
  if (!app || app.projectId !== projectId) throw new KeyholdError('APP_NOT_FOUND', { appId });
  return app;
}

function idViolations(req: { projectId: string; appId?: string }): FieldViolation[] {
  return [...requiredId('projectId', req.projectId), ...(req.appId !== undefined ? requiredId('appId', req.appId) : [])];
}

/** The steps every call on an existing project's apps shares: context, ids, project (404), permission (403). */
async function projectForCall(deps: Deps, ctx: HandlerContext, req: { projectId: string; appId?: string }, permission: 'project.app.read' | 'project.app.write') {
  const { caller, orgId } = await orgContext(deps, ctx);
  const violations = idViolations(req);
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(deps, req.projectId, orgId);
  authorize(caller, permission, { orgId, projectId: project.id });
  return { caller, project };
}

export function appHandlers(deps: Deps): Pick<Impl, 'addOIDCApp' | 'getAppByID' | 'listApps' | 'regenerateOIDCClientSecret' | 'removeApp'> {
  return {
    async addOIDCApp(req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const lang = languageOf(ctx);
      const result = validateOidcApp(oidcInputOf(req));
      const violations = idViolations(req);
      if (!result.ok) {
        violations.push(...result.violations.map((v) => ({ field: v.field, describe: (l: Language) => describeViolation(v, l) })));
      }
      if (violations.length || !result.ok) throw invalidRequest(violations);
      const config = result.config;
      const project = await projectInOrg(deps, req.projectId, orgId);
      authorize(caller, 'project.app.write', { orgId, projectId: project.id });

      const appId = newId();
      const clientId = newId();
      const clientSecret = needsClientSecret(config.authMethodType) ? generateClientSecret() : undefined;
      const base = { aggregateType: 'app' as const, aggregateId: appId, resourceOwner: orgId, creator: caller.userId };
      const events = await mapConflicts(
        appendNew(deps.store, [
          { ...base, type: 'app.added', payload: { projectId: project.id, name: config.name } },
          {
            ...base,
            type: 'app.oidc.config.added',
            payload: { clientId, clientSecretHash: clientSecret ? hashClientSecret(clientSecret) : null, config: { ...config } },
          },
        ]),
        { projectId: project.id },
      );
      const report = localizeCompliance(complianceProblems(config), lang);
      return {
        appId,
        details: writeDetails(events, appId, true),
        clientId,
        clientSecret: clientSecret ?? '',
        noneCompliant: report.noneCompliant,
        complianceProblems: report.complianceProblems,
      };
    },

    async getAppByID(req, ctx) {
      const { project } = await projectForCall(deps, ctx, req, 'project.app.read');
      return { app: appMessage(await appInProject(deps, req.appId, project.id), languageOf(ctx)) };
    },

    async listApps(req, ctx) {
      const { project } = await projectForCall(deps, ctx, req, 'project.app.read');
      const lang = languageOf(ctx);
      return { result: (await listApps(deps.database.db, project.id)).map((a) => appMessage(a, lang)) };
    },

    async regenerateOIDCClientSecret(req, ctx) {
      const { caller, project } = await projectForCall(deps, ctx, req, 'project.app.write');
      const app = await appInProject(deps, req.appId, project.id);
      const clientSecret = generateClientSecret();
      const events = await runCommand(deps.store, { type: 'app', id: app.id }, appDecider(app.id), {
        kind: 'regenerateSecret',
        appId: app.id,
        clientSecretHash: hashClientSecret(clientSecret),
        actor: caller.userId,
      });
      return { clientSecret, details: writeDetails(events, app.id, false) };
    },

    async removeApp(req, ctx) {
      const { caller, project } = await projectForCall(deps, ctx, req, 'project.app.write');
      const app = await appInProject(deps, req.appId, project.id);
      const events = await runCommand(deps.store, { type: 'app', id: app.id }, appDecider(app.id), {
        kind: 'remove',
        appId: app.id,
        actor: caller.userId,
      });
      return { details: writeDetails(events, app.id, false) };
    },
  };
}
