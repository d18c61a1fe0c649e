// Machine users as OAuth clients, as in ZITADEL: a machine user with a
// client secret (GenerateMachineSecret) is a client of the token endpoint for
// grant_type=client_credentials only. Its access tokens are for Keyhold's own
// API (the resource MACHINE_API_RESOURCE), opaque or JWT by the user's
// accessTokenType, and act as the machine user there as a PAT does
// (queries/callers.ts). Everything the provider needs for that is here;
// configuration.ts, adapter.ts and extensions.ts only call it.
import { SECRET_VERSION_CLAIM, secretVersion } from '../../domain/oidc/client-secret.js';
import { checkAccessJwt } from './access-jwt.js';
import type { MachineJwt } from '../../queries/callers.js';
import type { MachineClientView } from '../../queries/read-model.js';

/** The resource (RFC 8707) a machine user's access tokens are for: Keyhold's API; their `aud`. */
export const MACHINE_API_RESOURCE = 'urn:keyhold:iam:api';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** oidc-provider client metadata for a machine user with a client secret. */
export function machineClientMetadata(machine: MachineClientView): Record<string, unknown> {
  return {
    client_id: machine.clientId,
    // The hash, never the secret: compareClientSecret (extensions.ts) verifies against it.
    client_secret: machine.clientSecretHash,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    // Basic or the body: extensions.ts 1. takes either from a machine, as ZITADEL does.
    token_endpoint_auth_method: 'client_secret_basic',
    keyhold_machine_user_id: machine.userId,
    keyhold_org_id: machine.orgId,
    keyhold_access_token_type: machine.accessTokenType === 'jwt' ? 'jwt' : 'opaque',
  };
}

/** The machine user a client stands for, or undefined for an app. */
export function machineUserOf(client: Any): string | undefined {
  const id = client?.keyhold_machine_user_id ?? client?.keyholdMachineUserId;
  return typeof id === 'string' ? id : undefined;
}

/** resourceIndicators.getResourceServerInfo for a machine client: Keyhold's API, in the user's token format. */
export function machineResourceServer(client: Any, resource: string, accessTokenTTL: number): Record<string, unknown> | undefined {
  if (!machineUserOf(client) || resource !== MACHINE_API_RESOURCE) return undefined;
  const jwt = (client.keyhold_access_token_type ?? client.keyholdAccessTokenType) === 'jwt';
  return {
    scope: '',
    audience: MACHINE_API_RESOURCE,
    accessTokenFormat: jwt ? 'jwt' : 'opaque',
    accessTokenTTL,
    ...(jwt ? { jwt: { sign: { alg: 'RS256' } } } : {}),
  };
}


/**
 * extraTokenClaims for a machine client's token: which secret got it (the
 * client's secret is the stored hash, machineClientMetadata). In a JWT it is a
 * claim; an opaque token keeps it in its stored `extra` — both are compared
 * with the machine's current secret wherever the token is used (queries/callers.ts).
 */
export function machineTokenClaims(client: Any): Record<string, string> | undefined {
  if (!machineUserOf(client)) return undefined;
  return { [SECRET_VERSION_CLAIM]: secretVersion(String(client.clientSecret ?? '')) };
}

/** formats.customizers.jwt for a machine client's token: `sub` is the machine user (not the client id). */
export function customizeMachineJwt(client: Any, jwt: Any): boolean {
  const userId = machineUserOf(client);
  if (!userId) return false;
  jwt.payload.sub = userId;
  jwt.payload.aud = MACHINE_API_RESOURCE;
  return true;
}

/**
 * A machine user's JWT access token, checked: a valid Keyhold access JWT
 * (access-jwt.ts) whose `aud` is Keyhold's API. Answers the client id, the
 * user it names, when it was issued, the secret it was got with and the key
 * it is bound to (DPoP `cnf.jkt`), or undefined.
 */
export function verifyMachineJwt(token: string, issuer: string, signingKeys: readonly Record<string, unknown>[]): MachineJwt | undefined {
  const checked = checkAccessJwt(token, issuer, signingKeys);
  if (!('payload' in checked)) return undefined;
  const { payload } = checked;
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!aud.includes(MACHINE_API_RESOURCE)) return undefined;
  if (typeof payload.client_id !== 'string' || typeof payload.sub !== 'string') return undefined;
  const secret = typeof payload[SECRET_VERSION_CLAIM] === 'string' ? (payload[SECRET_VERSION_CLAIM] as string) : '';
  return { clientId: payload.client_id, userId: payload.sub, iat: typeof payload.iat === 'number' ? payload.iat : 0, secretVersion: secret, ...boundKey(payload) };
}

/** The `cnf.jkt` of a JWT access token's payload (RFC 9449 §6.1), when it is bound to a key. */
export function boundKey(payload: Record<string, unknown>): { jkt?: string } {
  const cnf = payload.cnf;
  const jkt = cnf && typeof cnf === 'object' ? (cnf as Record<string, unknown>).jkt : undefined;
  return typeof jkt === 'string' ? { jkt } : {};
}
