// The login UI's audit trail (issue 17): a successful login and a wrong
// password are events of the user. Not caller-authorized: the OpenID
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

export async function recordLogin(ports: Ports, input: LoginOutcome): Promise<void> {
  await runCommand(ports.events, { type: 'user', id: input.userId }, userDecider(input.userId), async () =>
    input.outcome === 'succeeded'
      ? { kind: 'recordLogin' as const, clientId: input.clientId, amr: input.amr ?? [], actor: input.userId }
      : { kind: 'recordPasswordFailure' as const, clientId: input.clientId, actor: input.userId },
  );
}
