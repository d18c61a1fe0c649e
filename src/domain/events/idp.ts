// Events of identity providers (aggregate `idp`, one per provider) and of the
// links of external identities to users (aggregate `idplink`, one per
// provider and upstream subject: its id is linkIdOf's, so two links of one
// identity meet on its sequence and one wins). No client secret is ever in an
// event (it is sealed apart, store/idp-secrets.ts); a link holds the
// upstream's subject (an identifier, not a secret), never its tokens.
import type { FieldMapping, LinkingOptions, Trust } from '../idp/provider.js';

/** A provider's settings as the events hold them (everything but the secret). */
export type IdpSettings = {
  name: string;
  clientId: string;
  scopes: string[];
  options: LinkingOptions;
  trust: Trust;
  /** The preset it was added with (its endpoints filled in), if any: google, azureAD, gitHub, gitLab. */
  preset?: string;
} & ({ kind: 'oidc'; issuer: string } | { kind: 'oauth'; authorizationEndpoint: string; tokenEndpoint: string; userinfoEndpoint: string; mapping: FieldMapping });

export interface IdpEventPayloads {
  /** `orgId` absent: the instance's provider, offered to every org's apps. */
  'idp.added': { orgId?: string; settings: IdpSettings };
  /** The settings as they are now (the whole of them). */
  'idp.changed': { settings: IdpSettings };
  'idp.removed': Record<string, never>;
}

export interface IdpLinkEventPayloads {
  /** `how`: created with the user at a first sign-in, linked by the person after signing in to the account, or by an administrator. */
  'idplink.added': { idpId: string; subject: string; userId: string; how: 'creation' | 'login' | 'admin' };
  'idplink.removed': { idpId: string; subject: string; userId: string };
  /** A sign-in through the provider as the linked user, with the amr it ended with. */
  'idplink.used': { idpId: string; userId: string; clientId: string; amr: string[] };
}
