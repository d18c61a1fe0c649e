// AddGenericOIDCProvider, UpdateGenericOIDCProvider, AddGenericOAuthProvider,
// UpdateGenericOAuthProvider, GetProviderByID, ListProviders, DeleteProvider:
// the same handlers for the admin API (the instance's providers) and the
// management API (the org the call acts in). Convert, call, convert.
import type { HandlerContext } from '@connectrpc/connect';
import type { IdpScope } from '../../access/idp-scope.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, writeDetails } from '../details.js';
import { idpCallbackUrl } from '../../domain/idp/callback.js';
import { oauthSettings, oidcSettings, presetSettings, providerMessage, tenantOf } from './convert.js';
import type * as idp from '../../../gen/keyhold/idp/v1/idp_pb.js';
import type { IdpSettings } from '../../domain/events/index.js';

export function providerHandlers({ commands, queries, mail }: ApiDeps, scope: IdpScope) {
  const issuer = () => mail?.issuer() ?? '';
  /** Add… and Update… of one preset: its settings from the request, the rest as for the generic calls. */
  const preset = <A extends { clientSecret: string }, U extends { id: string; clientSecret: string }>(settingsOf: (req: A | U) => IdpSettings) => ({
    async add(req: A, ctx: HandlerContext) {
      const { written, idpId } = await commands.addIdp(callOf(ctx), { ...scope, settings: settingsOf(req), clientSecret: req.clientSecret });
      return { details: writeDetails(written, true), id: idpId, callbackUrl: idpCallbackUrl(issuer(), idpId) };
    },
    async update(req: U, ctx: HandlerContext) {
      const { written } = await commands.updateIdp(callOf(ctx), { ...scope, idpId: req.id, settings: settingsOf(req), clientSecret: req.clientSecret });
      return { details: writeDetails(written, false) };
    },
  });
  const google = preset<idp.AddGoogleProviderRequest, idp.UpdateGoogleProviderRequest>((r) => presetSettings('google', r));
  const gitHub = preset<idp.AddGitHubProviderRequest, idp.UpdateGitHubProviderRequest>((r) => presetSettings('gitHub', r));
  const gitLab = preset<idp.AddGitLabProviderRequest, idp.UpdateGitLabProviderRequest>((r) => presetSettings('gitLab', r));
  const azureAD = preset<idp.AddAzureADProviderRequest, idp.UpdateAzureADProviderRequest>((r) => presetSettings('azureAD', r, { tenant: tenantOf(r.tenant), emailVerified: r.emailVerified }));
  return {
    addGoogleProvider: google.add,
    updateGoogleProvider: google.update,
    addGitHubProvider: gitHub.add,
    updateGitHubProvider: gitHub.update,
    addGitLabProvider: gitLab.add,
    updateGitLabProvider: gitLab.update,
    addAzureADProvider: azureAD.add,
    updateAzureADProvider: azureAD.update,
    async addGenericOIDCProvider(req: idp.AddGenericOIDCProviderRequest, ctx: HandlerContext) {
      const { written, idpId } = await commands.addIdp(callOf(ctx), { ...scope, settings: oidcSettings(req), clientSecret: req.clientSecret });
      return { details: writeDetails(written, true), id: idpId, callbackUrl: idpCallbackUrl(issuer(), idpId) };
    },
    async updateGenericOIDCProvider(req: idp.UpdateGenericOIDCProviderRequest, ctx: HandlerContext) {
      const { written } = await commands.updateIdp(callOf(ctx), { ...scope, idpId: req.id, settings: oidcSettings(req), clientSecret: req.clientSecret });
      return { details: writeDetails(written, false) };
    },
    async addGenericOAuthProvider(req: idp.AddGenericOAuthProviderRequest, ctx: HandlerContext) {
      const { written, idpId } = await commands.addIdp(callOf(ctx), { ...scope, settings: oauthSettings(req), clientSecret: req.clientSecret });
      return { details: writeDetails(written, true), id: idpId, callbackUrl: idpCallbackUrl(issuer(), idpId) };
    },
    async updateGenericOAuthProvider(req: idp.UpdateGenericOAuthProviderRequest, ctx: HandlerContext) {
      const { written } = await commands.updateIdp(callOf(ctx), { ...scope, idpId: req.id, settings: oauthSettings(req), clientSecret: req.clientSecret });
      return { details: writeDetails(written, false) };
    },
    async getProviderByID(req: idp.GetProviderByIDRequest, ctx: HandlerContext) {
      return { idp: providerMessage(await queries.getProvider(callOf(ctx), { ...scope, idpId: req.id }), issuer()) };
    },
    async listProviders(req: idp.ListProvidersRequest, ctx: HandlerContext) {
      const listed = await queries.listProviders(callOf(ctx), { ...scope, page: req.query });
      return { details: listDetails(listed), result: listed.items.map((p) => providerMessage(p, issuer())) };
    },
    async deleteProvider(req: idp.DeleteProviderRequest, ctx: HandlerContext) {
      const { written } = await commands.removeIdp(callOf(ctx), { ...scope, idpId: req.id });
      return { details: writeDetails(written, false) };
    },
  };
}
