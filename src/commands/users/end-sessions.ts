// A user's login sessions, ended one at a time or all but one (the account
// page's "End" and "End all others", RemoveUserSession / RemoveOtherUserSessions).
// The one mechanism of end-my-sessions.ts: an event of the user, whose
// projections delete the provider's state of the sessions (and the grants they
// made, with their tokens) and mark them ended, in the event's transaction
// (store/projections/oidc-sessions.ts, user-sessions.ts); the apps they signed
// in to then hear of it (server/oidc/backchannel-logout.ts).
//
// The user itself may, for its own sessions; another caller needs user.write
// in the user's org and containment (user-lifecycle.ts userForWrite). A session
// of someone else, or one already ended, is 404 SESSION_NOT_FOUND.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userDecider } from '../../domain/user/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { userForWrite } from './user-lifecycle.js';

async function ownSession(ports: Ports, { caller }: Call, userId: string, sessionId: string): Promise<void> {
  const violations = [...requiredId('userId', userId), ...requiredId('sessionId', sessionId)];
  if (violations.length) throw invalidRequest(violations);
  if (userId !== caller.userId) await userForWrite(ports, caller, userId);
  const sessions = await ports.lookups.userSessions(userId);
  if (!sessions.some((s) => s.id === sessionId)) throw new KeyholdError('SESSION_NOT_FOUND', { sessionId });
}

/** Ends one of the user's sessions (and the grants it made). */
export async function endSession(ports: Ports, call: Call, input: { userId: string; sessionId: string }): Promise<{ written: Written }> {
  await ownSession(ports, call, input.userId, input.sessionId);
  const events = await runCommand(ports.events, { type: 'user', id: input.userId }, userDecider(input.userId), { kind: 'endSession', sessionId: input.sessionId, actor: call.caller.userId });
  return { written: written(events, input.userId) };
}

/** Ends every session of the user but `currentSessionId` (the one the request came from), which must be the user's. */
export async function endOtherSessions(ports: Ports, call: Call, input: { userId: string; currentSessionId: string }): Promise<{ written: Written }> {
  await ownSession(ports, call, input.userId, input.currentSessionId);
  const events = await runCommand(ports.events, { type: 'user', id: input.userId }, userDecider(input.userId), { kind: 'endSessions', keep: input.currentSessionId, actor: call.caller.userId });
  return { written: written(events, input.userId) };
}

/** Ends every session of the user (an administrator's, or the user's own "sign out everywhere"). */
export async function endAllSessions(ports: Ports, call: Call, input: { userId: string }): Promise<{ written: Written }> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  if (input.userId !== call.caller.userId) await userForWrite(ports, call.caller, input.userId);
  const events = await runCommand(ports.events, { type: 'user', id: input.userId }, userDecider(input.userId), { kind: 'endSessions', actor: call.caller.userId });
  return { written: written(events, input.userId) };
}
