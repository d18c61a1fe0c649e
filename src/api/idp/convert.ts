// Identity providers between the API's messages (keyhold/idp/v1, ZITADEL's
// shapes) and the domain's settings. An absent Options or Trust is all off;
// an OAuth provider's mapping defaults to none beyond its id field.
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  AzureADTenantType,
  IDPOwnerType,
  ProviderType,
  type AddGenericOAuthProviderRequest,
  type AddGenericOIDCProviderRequest,
  type FieldMapping as FieldMappingMessage,
  type AzureADTenant,
  type Options,
  type ProviderSchema,
  type Trust as TrustMessage,
} from '../../../gen/keyhold/idp/v1/idp_pb.js';
import type { IdpSettings } from '../../domain/events/index.js';
import { idpCallbackUrl } from '../../domain/idp/callback.js';
import type { FieldMapping, LinkingOptions, Trust } from '../../domain/idp/provider.js';
import { isTenant, presetEndpoints, type PresetName } from '../../domain/idp/presets.js';
import { invalidRequest, violation } from '../../domain/errors/keyhold-error.js';
import type { IdpView } from '../../queries/read-model.js';
import { readDetails } from '../details.js';

const options = (o: Options | undefined): LinkingOptions => ({
  isLinkingAllowed: o?.isLinkingAllowed ?? false,
  isCreationAllowed: o?.isCreationAllowed ?? false,
  isAutoCreation: o?.isAutoCreation ?? false,
  isAutoUpdate: o?.isAutoUpdate ?? false,
});

const trust = (t: TrustMessage | undefined): Trust => ({ emailVerified: t?.emailVerified ?? false, upstreamAmr: t?.upstreamAmr ?? false });

/** Only the fields named: an empty one is no field. */
function mapping(id: string, m: FieldMappingMessage | undefined): FieldMapping {
  const named = (v: string | undefined) => (v ? v : undefined);
  const out: FieldMapping = { id };
  for (const key of ['email', 'emailVerified', 'preferredUsername', 'name', 'givenName', 'familyName'] as const) {
    const v = named(m?.[key]);
    if (v) out[key] = v;
  }
  return out;
}

type OidcFields = Pick<AddGenericOIDCProviderRequest, 'name' | 'issuer' | 'clientId' | 'scopes' | 'providerOptions' | 'trust'>;
type OauthFields = Pick<AddGenericOAuthProviderRequest, 'name' | 'clientId' | 'authorizationEndpoint' | 'tokenEndpoint' | 'userEndpoint' | 'scopes' | 'idAttribute' | 'providerOptions' | 'trust' | 'mapping'>;

export const oidcSettings = (r: OidcFields): IdpSettings => ({
  kind: 'oidc',
  name: r.name,
  issuer: r.issuer,
  clientId: r.clientId,
  scopes: [...r.scopes],
  options: options(r.providerOptions),
  trust: trust(r.trust),
});

export const oauthSettings = (r: OauthFields): IdpSettings => ({
  kind: 'oauth',
  name: r.name,
  clientId: r.clientId,
  authorizationEndpoint: r.authorizationEndpoint,
  tokenEndpoint: r.tokenEndpoint,
  userinfoEndpoint: r.userEndpoint,
  scopes: [...r.scopes],
  mapping: mapping(r.idAttribute, r.mapping),
  options: options(r.providerOptions),
  trust: trust(r.trust),
});

/** The name a preset's button says when the request names none. */
const PRESET_NAMES: Record<PresetName, string> = { google: 'Google', azureAD: 'Microsoft', gitHub: 'GitHub', gitLab: 'GitLab' };
const TENANT_TYPES: Record<AzureADTenantType, string> = {
  [AzureADTenantType.AZURE_AD_TENANT_TYPE_COMMON]: 'common',
  [AzureADTenantType.AZURE_AD_TENANT_TYPE_ORGANISATIONS]: 'organizations',
  [AzureADTenantType.AZURE_AD_TENANT_TYPE_CONSUMERS]: 'consumers',
};

/** Entra ID's tenant as the issuer names it: absent, organizations; a tenant id that is no GUID, or a kind Keyhold does not know, refused by name. */
export function tenantOf(t: AzureADTenant | undefined): string {
  if (t?.type.case === 'tenantId') {
    if (isTenant(t.type.value) && !['common', 'organizations', 'consumers'].includes(t.type.value)) return t.type.value.toLowerCase();
    throw invalidRequest([violation('tenant.tenantId', { en: 'must be the tenant\'s id, a GUID', de: 'muss die ID des Mandanten sein, eine GUID' })]);
  }
  if (t?.type.case === 'tenantType') {
    const kind = TENANT_TYPES[t.type.value];
    if (kind) return kind;
    throw invalidRequest([violation('tenant.tenantType', { en: 'is not a tenant kind Keyhold knows', de: 'ist keine Mandantenart, die Keyhold kennt' })]);
  }
  return 'organizations';
}

type PresetFields = { name: string; clientId: string; scopes: readonly string[]; providerOptions?: Options; trust?: TrustMessage };

/** A preset's settings: its endpoints and claims filled in, the caller's client id, options and trust. */
export function presetSettings(preset: PresetName, r: PresetFields, extra: { tenant?: string; emailVerified?: boolean } = {}): IdpSettings {
  const endpoints = presetEndpoints(preset, { tenant: extra.tenant });
  const t = trust(r.trust);
  const base = {
    name: r.name.trim() ? r.name : PRESET_NAMES[preset],
    clientId: r.clientId,
    scopes: r.scopes.length ? [...r.scopes] : endpoints.scopes,
    options: options(r.providerOptions),
    trust: { ...t, emailVerified: t.emailVerified || Boolean(extra.emailVerified) },
    preset,
  };
  return endpoints.kind === 'oidc'
    ? { ...base, kind: 'oidc', issuer: endpoints.issuer }
    : { ...base, kind: 'oauth', authorizationEndpoint: endpoints.authorizationEndpoint, tokenEndpoint: endpoints.tokenEndpoint, userinfoEndpoint: endpoints.userinfoEndpoint, mapping: endpoints.mapping };
}

export function providerMessage(p: IdpView, issuer: string): MessageInitShape<typeof ProviderSchema> {
  const s = p.settings;
  const { id: idAttribute, ...fields } = s.kind === 'oauth' ? s.mapping : { id: '' };
  return {
    id: p.idpId,
    details: readDetails({ ...p, orgId: p.orgId ?? '' }),
    name: s.name,
    owner: p.orgId ? IDPOwnerType.IDP_OWNER_TYPE_ORG : IDPOwnerType.IDP_OWNER_TYPE_SYSTEM,
    type: s.kind === 'oidc' ? ProviderType.OIDC : ProviderType.OAUTH,
    config: {
      options: { ...s.options },
      trust: { ...s.trust },
      hasClientSecret: true,
      config:
        s.kind === 'oidc'
          ? { case: 'oidc', value: { clientId: s.clientId, issuer: s.issuer, scopes: s.scopes } }
          : {
              case: 'oauth',
              value: { clientId: s.clientId, authorizationEndpoint: s.authorizationEndpoint, tokenEndpoint: s.tokenEndpoint, userEndpoint: s.userinfoEndpoint, scopes: s.scopes, idAttribute, mapping: fields },
            },
    },
    callbackUrl: idpCallbackUrl(issuer, p.idpId),
  };
}
