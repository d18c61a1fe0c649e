// The login UI's audit trail: a successful login and a wrong
// password are events of the user; a wrong password that reaches the org's
// lockout policy also locks the user. Not caller-authorized: the OpenID
// Provider's login records them for the user who is logging in (the actor).
import { userDecider } from '../../domain/user/decider.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';

export interface LoginOutcome {
  userId: string;
  clientId: string;
  outcome: 'succeeded' | 'wrongPassword';
  /** How the user authenticated, for a success (e.g. ["pwd"]). */
  amr?: string[];
}

/** `locked`: this wrong password reached the lockout policy's threshold and locked the user. */
export async function recordLogin(ports: Ports, input: LoginOutcome): Promise<{ locked: boolean }> {
  const events = await runCommand(ports.events, { type: 'user', id: input.userId }, userDecider(input.userId), async (state) =>
    input.outcome === 'succeeded'
      ? { kind: 'recordLogin' as const, clientId: input.clientId, amr: input.amr ?? [], actor: input.userId }
      : {
          kind: 'recordPasswordFailure' as const,
          clientId: input.clientId,
          actor: input.userId,
          // The org's threshold, read per failure (a policy change applies to the next wrong password).
          maxPasswordAttempts: state.exists ? await ports.lookups.maxPasswordAttemptsOf(state.orgId) : 0,
        },
  );
  return { locked: events.some((e) => e.type === 'user.locked') };
}
