// SetUserMetadata, BulkSetUserMetadata, RemoveUserMetadata, BulkRemoveUserMetadata.
// A user of the call's org (404 for one elsewhere), user.write there (403), and
// containment: apps may decide on a user's metadata, so nobody changes that of
// someone holding more than they do. A bulk request is one command on the
// user's events: every entry is written, or none.
import { invalidRequest, KeyholdError, type FieldViolation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userDecider, type MetadataEntry, type UserCommand } from '../../domain/user/decider.js';
import { bulkRule, metadataKey, metadataValueRule, repeatedKey } from '../../domain/user/metadata.js';
import { assertContainsUser, authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

/** Entries as sent; `bulk`: named as BulkSetUserMetadata's `metadata[i]` (else `key`, `value`). */
export interface SetMetadataInput {
  userId: string;
  entries: readonly { key: string; value: Uint8Array }[];
  bulk: boolean;
}

export async function setUserMetadata(ports: Ports, call: Call, input: SetMetadataInput): Promise<{ written: Written }> {
  const violations: FieldViolation[] = [...requiredId('id', input.userId), ...(input.bulk ? bulkRule('metadata', input.entries.length) : [])];
  const entries: MetadataEntry[] = [];
  const seen = new Set<string>();
  input.entries.forEach((e, i) => {
    const at = input.bulk ? `metadata[${i}].` : '';
    const key = metadataKey(`${at}key`, e.key);
    violations.push(...key.violations, ...metadataValueRule(`${at}value`, e.value));
    if (key.violations.length === 0 && seen.has(key.key)) violations.push(repeatedKey(`${at}key`));
    seen.add(key.key);
    entries.push({ key: key.key, value: Buffer.from(e.value).toString('base64'), field: `${at}key` });
  });
  return write(ports, call, input.userId, violations, { kind: 'setMetadata', entries });
}

/** `bulk`: named as BulkRemoveUserMetadata's `keys[i]` (else `key`). */
export async function removeUserMetadata(ports: Ports, call: Call, input: { userId: string; keys: readonly string[]; bulk: boolean }): Promise<{ written: Written }> {
  const violations: FieldViolation[] = [...requiredId('id', input.userId), ...(input.bulk ? bulkRule('keys', input.keys.length) : [])];
  const keys: string[] = [];
  input.keys.forEach((k, i) => {
    const field = input.bulk ? `keys[${i}]` : 'key';
    const key = metadataKey(field, k);
    violations.push(...key.violations);
    if (key.violations.length === 0 && keys.includes(key.key)) violations.push(repeatedKey(field));
    keys.push(key.key);
  });
  return write(ports, call, input.userId, violations, { kind: 'removeMetadata', keys });
}

async function write(
  ports: Ports,
  call: Call,
  userId: string,
  violations: FieldViolation[],
  command: { kind: 'setMetadata'; entries: MetadataEntry[] } | { kind: 'removeMetadata'; keys: string[] },
): Promise<{ written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  if (violations.length) throw invalidRequest(violations);
  const events = await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), async (state): Promise<UserCommand> => {
    if (!state.exists || state.orgId !== orgId) throw new KeyholdError('USER_NOT_FOUND', { userId });
    authorize(caller, 'user.write', { orgId });
    await assertContainsUser(ports.lookups, caller, userId);
    return { ...command, actor: caller.userId };
  });
  return { written: written(events, userId) };
}
