// RemovePasskey: a user's passkey (or pending registration) goes; its
// credential id is free again. As RemoveU2F: the user themself, or
// user.credential.write in the user's org and containment; the user's own
// last factor stays while its org requires one (../users/remove-factor.ts).
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { removeFactor } from '../users/remove-factor.js';
import { written, type Written } from '../written.js';

export async function removePasskey(ports: Ports, { caller }: Call, input: { userId: string; passkeyId: string }): Promise<{ written: Written }> {
  const violations = [...requiredId('userId', input.userId), ...requiredId('passkeyId', input.passkeyId)];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const events = await removeFactor(ports, caller, user, { kind: 'passkey', id: input.passkeyId });
  return { written: written(events, input.passkeyId) };
}
