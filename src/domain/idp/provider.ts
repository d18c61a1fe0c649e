// An identity provider Keyhold signs people in with: a generic OpenID Connect
// provider (found by its issuer's discovery document) or a plain OAuth 2.0
// one (its endpoints given, the person's identity read from its userinfo
// endpoint through a field mapping). Per instance (orgId undefined) or per
// org. The client secret is never part of this shape: it is sealed apart
// (the store) and never answered.

/** What Keyhold may do with a first sign-in of an identity nobody linked yet (ZITADEL's provider options). */
export interface LinkingOptions {
  /** A person may link the identity to an existing account after signing in to that account with its own factors. */
  isLinkingAllowed: boolean;
  /** A person may create an account from the identity. */
  isCreationAllowed: boolean;
  /** The account is created without asking (just in time) when creation is allowed. */
  isAutoCreation: boolean;
  /** The profile is updated from the upstream at each sign-in. */
  isAutoUpdate: boolean;
}

/** How far Keyhold believes the upstream (both off unless an administrator says so). */
export interface Trust {
  /** An address the upstream says is verified is taken as verified. */
  emailVerified: boolean;
  /** The upstream's `amr` counts toward forceMfa (else Keyhold asks its own second factor). */
  upstreamAmr: boolean;
}

/** Which claim (OIDC) or userinfo field (OAuth) holds each part of the profile. */
export interface FieldMapping {
  id: string;
  email?: string;
  emailVerified?: string;
  preferredUsername?: string;
  name?: string;
  givenName?: string;
  familyName?: string;
}

interface Common {
  id: string;
  /** undefined: the instance's, offered to every org's apps. */
  orgId?: string;
  /** What the button says: "Continue with <name>". */
  name: string;
  clientId: string;
  scopes: string[];
  options: LinkingOptions;
  trust: Trust;
}

export type ProviderConfig =
  | (Common & { kind: 'oidc'; issuer: string })
  | (Common & { kind: 'oauth'; authorizationEndpoint: string; tokenEndpoint: string; userinfoEndpoint: string; mapping: FieldMapping });

/** The claims of a standard ID token / OIDC userinfo. */
export const OIDC_MAPPING: FieldMapping = {
  id: 'sub',
  email: 'email',
  emailVerified: 'email_verified',
  preferredUsername: 'preferred_username',
  name: 'name',
  givenName: 'given_name',
  familyName: 'family_name',
};

/** Nothing is trusted, nothing created or linked without a setting saying so. */
export const DEFAULT_OPTIONS: LinkingOptions = { isLinkingAllowed: false, isCreationAllowed: false, isAutoCreation: false, isAutoUpdate: false };
export const DEFAULT_TRUST: Trust = { emailVerified: false, upstreamAmr: false };

/** Which providers an app of `orgId` offers: the instance's and its org's own. */
export const offeredTo = (providers: readonly ProviderConfig[], orgId: string | undefined): ProviderConfig[] =>
  providers.filter((p) => p.orgId === undefined || p.orgId === orgId);
