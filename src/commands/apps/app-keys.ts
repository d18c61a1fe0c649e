// AddAppKey / RemoveAppKey: keys of a private_key_jwt app. Keyhold
// makes the key pair, stores only the public key (event and read model), and
// hands the private key back once in ZITADEL's JSON key file:
// {type: "application", keyId, key (PEM), appId, clientId}, base64 in `keyDetails`.
import { appDecider, type AppCommand } from '../../domain/app/decider.js';
import { invalidRequest, violation, type FieldViolation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { isApiGuardian } from './app-api-access.js';
import { projectForAppCall } from '../../access/app-in-project.js';

/** ZITADEL's expiry for a key added without one. */
export const NO_EXPIRY = new Date('9999-12-31T23:59:59Z');

/** The JSON key file a backend reads (ZITADEL's application key format). */
export interface AppKeyFile {
  type: 'application';
  keyId: string;
  key: string;
  appId: string;
  clientId: string;
}

export async function addAppKey(
  ports: Ports,
  call: Call,
  input: { projectId: string; appId: string; type: string; expiresAt: Date | null },
): Promise<{ keyId: string; keyFile: AppKeyFile; written: Written }> {
  const more: FieldViolation[] = [];
  if (input.type !== 'KEY_TYPE_JSON') more.push(violation('type', { en: 'must be KEY_TYPE_JSON', de: 'muss KEY_TYPE_JSON sein' }));
  if (input.expiresAt && !(input.expiresAt.getTime() > ports.clock.now())) {
    more.push(violation('expirationDate', { en: 'must be in the future', de: 'muss in der Zukunft liegen' }));
  }
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'project.app.write', more);
  const keyId = ports.ids.newId();
  const pair = await ports.secrets.appKeyPair();
  const expiresAt = (input.expiresAt ?? NO_EXPIRY).toISOString();
  let clientId = '';
  const events = await runCommand(ports.events, { type: 'app', id: input.appId }, appDecider(input.appId), async (state): Promise<AppCommand> => {
    clientId = state.clientId;
    return {
      kind: 'addKey',
      projectId: project.id,
      keyId,
      type: 'KEY_TYPE_JSON',
      publicKey: { ...pair.publicJwk, kid: keyId, use: 'sig', alg: 'RS256' },
      expiresAt,
      actor: caller.userId,
      apiGuardian: isApiGuardian(caller, project),
    };
  });
  return { keyId, keyFile: { type: 'application', keyId, key: pair.privateKeyPem, appId: input.appId, clientId }, written: written(events, input.appId) };
}

export async function removeAppKey(ports: Ports, call: Call, input: { projectId: string; appId: string; keyId: string }): Promise<{ written: Written }> {
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'project.app.write', requiredId('keyId', input.keyId));
  const events = await runCommand(ports.events, { type: 'app', id: input.appId }, appDecider(input.appId), {
    kind: 'removeKey',
    projectId: project.id,
    keyId: input.keyId,
    actor: caller.userId,
  });
  return { written: written(events, input.appId) };
}
