// AddGenericOIDCProvider, AddGenericOAuthProvider (and the presets that fill
// their endpoints), UpdateGeneric…Provider, DeleteProvider: the instance's
// providers under iam.idp.write (admin API), an org's under org.idp.write in
// the org the call acts in (management API). The client secret is sealed
// (ports.idpSecrets) and never answered: an add stores it before the event
// under the new id (a refused add leaves a row no provider has); an update
// replaces it only once the provider's own command succeeded (a secret sent
// for another scope's provider changes nothing).
import type { Call } from '../../access/caller.js';
import { idpScopeOf, type IdpScope } from '../../access/idp-scope.js';
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import type { IdpSettings } from '../../domain/events/index.js';
import { idpDecider } from '../../domain/idp/decider.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { settingsViolations } from '../../domain/idp/settings.js';
import type { IdpSecretStore, Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export type { IdpScope } from '../../access/idp-scope.js';

const MAX_SECRET = 1000;

function secretViolations(secret: unknown, required: boolean) {
  if (secret === undefined || secret === '') return required ? [violation('clientSecret', { en: 'is required', de: 'ist erforderlich' })] : [];
  if (typeof secret !== 'string' || secret.length > MAX_SECRET || /[\u0000-\u001f]/.test(secret)) {
    return [violation('clientSecret', { en: `must be text of at most ${MAX_SECRET} characters, without control characters`, de: `muss Text von höchstens ${MAX_SECRET} Zeichen sein, ohne Steuerzeichen` })];
  }
  return [];
}

function secretsOf(ports: Ports): IdpSecretStore {
  if (!ports.idpSecrets) throw new KeyholdError('SERVER_STARTING', {});
  return ports.idpSecrets();
}

const scopeOf = (ports: Ports, call: Call, where: IdpScope, access: 'read' | 'write') => idpScopeOf(ports.lookups, call, where, access);

export async function addIdp(ports: Ports, call: Call, input: IdpScope & { settings: IdpSettings; clientSecret: unknown }): Promise<{ written: Written; idpId: string }> {
  const { actor, orgId } = await scopeOf(ports, call, input, 'write');
  const violations = [...settingsViolations(input.settings), ...secretViolations(input.clientSecret, true)];
  if (violations.length) throw invalidRequest(violations);
  const idpId = ports.ids.newId();
  await secretsOf(ports).put(idpId, input.clientSecret as string);
  const events = await runCommand(ports.events, { type: 'idp', id: idpId }, idpDecider(idpId), { kind: 'add', orgId, settings: input.settings, actor });
  return { written: written(events, idpId), idpId };
}

/** The provider's settings replaced; `clientSecret` absent or empty: the secret stays. */
export async function updateIdp(ports: Ports, call: Call, input: IdpScope & { idpId: string; settings: IdpSettings; clientSecret?: unknown }): Promise<{ written: Written }> {
  const { actor, orgId } = await scopeOf(ports, call, input, 'write');
  const violations = [...requiredId('id', input.idpId), ...secretViolations(input.clientSecret, false)];
  if (violations.length) throw invalidRequest(violations);
  const events = await runCommand(ports.events, { type: 'idp', id: input.idpId }, idpDecider(input.idpId), { kind: 'change', orgId, settings: input.settings, actor });
  if (typeof input.clientSecret === 'string' && input.clientSecret) await secretsOf(ports).put(input.idpId, input.clientSecret);
  return { written: written(events, input.idpId) };
}

/** DeleteProvider: its secret and its links' rows go with it (the projection); its events stay. */
export async function removeIdp(ports: Ports, call: Call, input: IdpScope & { idpId: string }): Promise<{ written: Written }> {
  const { actor, orgId } = await scopeOf(ports, call, input, 'write');
  const violations = requiredId('id', input.idpId);
  if (violations.length) throw invalidRequest(violations);
  const events = await runCommand(ports.events, { type: 'idp', id: input.idpId }, idpDecider(input.idpId), { kind: 'remove', orgId, actor });
  return { written: written(events, input.idpId) };
}

/** GetProviderByID / ListProviders read access (the API's queries answer; this only decides who may). */
export async function authorizeIdpRead(ports: Ports, call: Call, where: IdpScope): Promise<{ orgId?: string }> {
  const { orgId } = await scopeOf(ports, call, where, 'read');
  return { orgId };
}
