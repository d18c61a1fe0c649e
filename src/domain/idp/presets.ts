// The public providers an administrator adds by name (ZITADEL's AddGoogleProvider,
// AddAzureADProvider, AddGitHubProvider, AddGitLabProvider): each only fills in
// the endpoints and the claims of a generic provider (provider.ts). What the
// administrator gives is the client id and secret (and Entra ID's tenant).
import { OIDC_MAPPING, type FieldMapping } from './provider.js';

export type PresetName = 'google' | 'azureAD' | 'gitHub' | 'gitLab';

export type PresetEndpoints =
  | { kind: 'oidc'; issuer: string; scopes: string[] }
  | { kind: 'oauth'; authorizationEndpoint: string; tokenEndpoint: string; userinfoEndpoint: string; scopes: string[]; mapping: FieldMapping };

/** Entra ID's tenant: a tenant id (a GUID) or one of its shared names. */
const TENANT = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|organizations|consumers|common)$/;

export const isTenant = (tenant: string): boolean => TENANT.test(tenant);

/**
 * The endpoints of a preset. GitHub is OAuth 2.0 only: its user is read from
 * /user (a numeric `id`, `login`, `name`, `email`); it says nothing of whether
 * the address is verified, so a GitHub address is never taken as verified.
 */
export function presetEndpoints(preset: PresetName, opts: { tenant?: string; baseUrl?: string } = {}): PresetEndpoints {
  switch (preset) {
    case 'google':
      return { kind: 'oidc', issuer: 'https://accounts.google.com', scopes: ['openid', 'profile', 'email'] };
    case 'azureAD': {
      const tenant = opts.tenant && isTenant(opts.tenant) ? opts.tenant : 'organizations';
      return { kind: 'oidc', issuer: `https://login.microsoftonline.com/${tenant}/v2.0`, scopes: ['openid', 'profile', 'email'] };
    }
    case 'gitLab':
      return { kind: 'oidc', issuer: (opts.baseUrl ?? 'https://gitlab.com').replace(/\/+$/, ''), scopes: ['openid', 'profile', 'email'] };
    case 'gitHub':
      return {
        kind: 'oauth',
        authorizationEndpoint: 'https://github.com/login/oauth/authorize',
        tokenEndpoint: 'https://github.com/login/oauth/access_token',
        userinfoEndpoint: 'https://api.github.com/user',
        scopes: ['read:user', 'user:email'],
        mapping: { id: 'id', email: 'email', preferredUsername: 'login', name: 'name' },
      };
  }
}

export { OIDC_MAPPING };
