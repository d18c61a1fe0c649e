// Protobuf ⇄ OIDC domain: enum numbers to the names the rules speak, and a
// stored config back into the OIDCConfig message (never with a secret or hash).
import type { DescEnum, MessageInitShape } from '@bufbuild/protobuf';
import {
  OIDCAppTypeSchema,
  OIDCAuthMethodTypeSchema,
  OIDCGrantTypeSchema,
  OIDCResponseTypeSchema,
  OIDCTokenTypeSchema,
  OIDCVersionSchema,
  type OIDCConfigSchema,
} from '../../../gen/keyhold/management/v1/app_pb.js';
import type { AddOIDCAppRequest, UpdateOIDCAppConfigRequest } from '../../../gen/keyhold/management/v1/management_pb.js';
import type { Language } from '../../domain/i18n/language.js';
import { complianceProblems, localizeCompliance, type OidcAppInput, type OidcConfig } from '../../domain/oidc/index.js';

/** The value's name, or for a number the schema does not know, the number as text (the validator rejects it). */
function nameOf(schema: DescEnum, value: number): string {
  return schema.values.find((v) => v.number === value)?.name ?? String(value);
}

function numberOf(schema: DescEnum, name: string): number {
  return schema.values.find((v) => v.name === name)?.number ?? 0;
}

export function oidcInputOf(req: AddOIDCAppRequest): OidcAppInput {
  return { name: req.name, ...oidcConfigInputOf(req) };
}

/** Every field of the configuration but the name (UpdateOIDCAppConfig has none; the version has one value). */
export function oidcConfigInputOf(req: Omit<AddOIDCAppRequest, 'name'> | UpdateOIDCAppConfigRequest): Omit<OidcAppInput, 'name'> {
  return {
    redirectUris: req.redirectUris,
    responseTypes: req.responseTypes.map((v) => nameOf(OIDCResponseTypeSchema, v)),
    grantTypes: req.grantTypes.map((v) => nameOf(OIDCGrantTypeSchema, v)),
    appType: nameOf(OIDCAppTypeSchema, req.appType),
    authMethodType: nameOf(OIDCAuthMethodTypeSchema, req.authMethodType),
    postLogoutRedirectUris: req.postLogoutRedirectUris,
    version: 'version' in req ? nameOf(OIDCVersionSchema, req.version) : 'OIDC_VERSION_1_0',
    devMode: req.devMode,
    accessTokenType: nameOf(OIDCTokenTypeSchema, req.accessTokenType),
    accessTokenRoleAssertion: req.accessTokenRoleAssertion,
    idTokenRoleAssertion: req.idTokenRoleAssertion,
    idTokenUserinfoAssertion: req.idTokenUserinfoAssertion,
    clockSkew: req.clockSkew ? { seconds: req.clockSkew.seconds, nanos: req.clockSkew.nanos } : undefined,
    additionalOrigins: req.additionalOrigins,
    skipNativeAppSuccessPage: req.skipNativeAppSuccessPage,
    backChannelLogoutUri: req.backChannelLogoutUri,
  };
}

export function oidcConfigMessage(config: OidcConfig, clientId: string, lang: Language): MessageInitShape<typeof OIDCConfigSchema> {
  const report = localizeCompliance(complianceProblems(config), lang);
  return {
    redirectUris: config.redirectUris,
    responseTypes: config.responseTypes.map((n) => numberOf(OIDCResponseTypeSchema, n)),
    grantTypes: config.grantTypes.map((n) => numberOf(OIDCGrantTypeSchema, n)),
    appType: numberOf(OIDCAppTypeSchema, config.appType),
    clientId,
    authMethodType: numberOf(OIDCAuthMethodTypeSchema, config.authMethodType),
    postLogoutRedirectUris: config.postLogoutRedirectUris,
    version: numberOf(OIDCVersionSchema, config.version),
    noneCompliant: report.noneCompliant,
    complianceProblems: report.complianceProblems,
    devMode: config.devMode,
    accessTokenType: numberOf(OIDCTokenTypeSchema, config.accessTokenType),
    accessTokenRoleAssertion: config.accessTokenRoleAssertion,
    idTokenRoleAssertion: config.idTokenRoleAssertion,
    idTokenUserinfoAssertion: config.idTokenUserinfoAssertion,
    clockSkew: { seconds: BigInt(Math.floor(config.clockSkewMs / 1000)), nanos: (config.clockSkewMs % 1000) * 1_000_000 },
    additionalOrigins: config.additionalOrigins,
    skipNativeAppSuccessPage: config.skipNativeAppSuccessPage,
    backChannelLogoutUri: config.backChannelLogoutUri ?? '',
  };
}
