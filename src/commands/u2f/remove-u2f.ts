// RemoveU2F: a user's security key (or pending registration) goes; its
// credential id is free again. Another user's key passes containment; the
// user's own last factor stays while its org requires one (../users/remove-factor.ts).
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { removeFactor } from '../users/remove-factor.js';
import { written, type Written } from '../written.js';

export async function removeU2f(ports: Ports, { caller }: Call, input: { userId: string; u2fId: string }): Promise<{ written: Written }> {
  const violations = [...requiredId('userId', input.userId), ...requiredId('u2fId', input.u2fId)];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const events = await removeFactor(ports, caller, user, { kind: 'key', id: input.u2fId });
  return { written: written(events, input.u2fId) };
}
