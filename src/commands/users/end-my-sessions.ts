// RemoveMySessions (auth, DELETE /auth/v1/users/me/sessions): the caller ends
// every session and grant of its own — its sign-ins in browsers, and the
// codes, refresh and access tokens of every app, the token of this call too
// when it is one of them (the event's projection deletes them in the same
// transaction: store/projections/oidc-sessions.ts). Personal access tokens
// are credentials the user was given, not sessions: they stay. Anyone
// authenticated may, for itself only: there is no user id to name.
import { userDecider } from '../../domain/user/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function endMySessions(ports: Ports, { caller }: Call, _input: Record<string, never>): Promise<{ written: Written }> {
  const userId = caller.userId;
  const events = await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), { kind: 'endSessions', actor: userId });
  return { written: written(events, userId) };
}
