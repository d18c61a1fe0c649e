// AddOIDCApp and the app lifecycle: GetAppByID, ListApps, UpdateApp,
// UpdateOIDCAppConfig, RegenerateOIDCClientSecret, DeactivateApp,
// ReactivateApp, SetAppAPIAccess, RemoveApp.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { AppState, type AppSchema } from '../../../gen/keyhold/management/v1/app_pb.js';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import type { Language } from '../../domain/i18n/language.js';
import { localizeCompliance } from '../../domain/oidc/index.js';
import type { AppView } from '../../queries/read-model.js';
import { callOf, languageOf, type ApiDeps } from '../context.js';
import { listDetails, readDetails, sentTexts, writeDetails } from '../details.js';
import { oidcConfigInputOf, oidcConfigMessage, oidcInputOf } from './oidc-convert.js';

type Impl = ServiceImpl<typeof ManagementService>;

function appMessage(app: AppView, lang: Language): MessageInitShape<typeof AppSchema> {
  return {
    id: app.id,
    details: readDetails(app),
    state: app.state === 'inactive' ? AppState.INACTIVE : AppState.ACTIVE,
    name: app.name,
    oidcConfig: app.config ? oidcConfigMessage(app.config, app.clientId ?? '', lang) : undefined,
    apiAccessAllowed: app.apiAccess,
  };
}

type AppMethods =
  | 'addOIDCApp'
  | 'getAppByID'
  | 'listApps'
  | 'updateApp'
  | 'updateOIDCAppConfig'
  | 'regenerateOIDCClientSecret'
  | 'deactivateApp'
  | 'reactivateApp'
  | 'setAppAPIAccess'
  | 'removeApp';

export function appHandlers({ commands, queries }: ApiDeps): Pick<Impl, AppMethods> {
  return {
    async addOIDCApp(req, ctx) {
      const added = await commands.addOidcApp(callOf(ctx), { projectId: req.projectId, app: oidcInputOf(req) });
      const report = localizeCompliance(added.compliance, languageOf(ctx));
      return {
        appId: added.appId,
        details: writeDetails(added.written, true),
        clientId: added.clientId,
        clientSecret: added.clientSecret ?? '',
        noneCompliant: report.noneCompliant,
        complianceProblems: report.complianceProblems,
      };
    },

    async getAppByID(req, ctx) {
      return { app: appMessage(await queries.getApp(callOf(ctx), req), languageOf(ctx)) };
    },

    async listApps(req, ctx) {
      const lang = languageOf(ctx);
      const listed = await queries.listApps(callOf(ctx), {
        projectId: req.projectId,
        page: req.query,
        queryCount: req.queries.length,
        names: sentTexts(req.queries, (q) =>
          q.query.case === 'nameQuery' ? { oneof: 'nameQuery', field: 'name', value: q.query.value.name, method: q.query.value.method } : undefined,
        ),
      });
      return { result: listed.items.map((a) => appMessage(a, lang)), details: listDetails(listed) };
    },

    async updateApp(req, ctx) {
      const { written } = await commands.updateApp(callOf(ctx), { projectId: req.projectId, appId: req.appId, name: req.name });
      return { details: writeDetails(written, false) };
    },

    async updateOIDCAppConfig(req, ctx) {
      const updated = await commands.updateOidcConfig(callOf(ctx), { projectId: req.projectId, appId: req.appId, app: oidcConfigInputOf(req) });
      const report = localizeCompliance(updated.compliance, languageOf(ctx));
      return {
        details: writeDetails(updated.written, false),
        noneCompliant: report.noneCompliant,
        complianceProblems: report.complianceProblems,
        clientSecretNeeded: updated.clientSecretNeeded,
      };
    },

    async deactivateApp(req, ctx) {
      const { written } = await commands.deactivateApp(callOf(ctx), req);
      return { details: writeDetails(written, false) };
    },

    async reactivateApp(req, ctx) {
      const { written } = await commands.reactivateApp(callOf(ctx), req);
      return { details: writeDetails(written, false) };
    },

    async setAppAPIAccess(req, ctx) {
      const { written } = await commands.setAppApiAccess(callOf(ctx), { projectId: req.projectId, appId: req.appId, allowed: req.allowed });
      return { details: writeDetails(written, false) };
    },

    async regenerateOIDCClientSecret(req, ctx) {
      const { clientSecret, written } = await commands.regenerateOidcClientSecret(callOf(ctx), req);
      return { clientSecret, details: writeDetails(written, false) };
    },

    async removeApp(req, ctx) {
      const { written } = await commands.removeApp(callOf(ctx), req);
      return { details: writeDetails(written, false) };
    },
  };
}
