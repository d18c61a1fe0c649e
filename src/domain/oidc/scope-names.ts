// The scopes and claims Keyhold speaks beyond OpenID Connect's own, by name:
// the provider grants and fills them (src/server/oidc/), the login shows them
// in words (src/login/pages/scope-words.ts).

/** ZITADEL's roles scope and claim: `{roleKey: {orgId: orgName}}`. */
export const ROLES_SCOPE = 'urn:keyhold:iam:org:project:roles';
export const ROLES_CLAIM = 'urn:keyhold:iam:org:project:roles';

/**
 * ZITADEL's metadata scope and claim, under ZITADEL's name so apps written for it
 * work unchanged: `{key: base64(value)}`, every entry of the user (at most 64).
 */
export const METADATA_SCOPE = 'urn:zitadel:iam:user:metadata';
export const METADATA_CLAIM = 'urn:zitadel:iam:user:metadata';

/** The prefix of the org scope `urn:keyhold:iam:org:id:{orgId}` (ZITADEL's); the rest is the org's id. */
export const ORG_SCOPE_PREFIX = 'urn:keyhold:iam:org:id:';
