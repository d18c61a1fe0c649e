// The OpenID Provider's audit trail of a user (throttling, grants and their
// revocation are events): the login's throttle engaging, a grant
// stored, a grant or one token revoked. Not caller-authorized: the provider
// records them for the user concerned (the actor). Never a token, a token's
// id or a password: the event types say what they carry.
import { INSTANCE_ID } from '../../domain/events/index.js';
import { instanceDecider, LOGIN_ACTOR } from '../../domain/instance/decider.js';
import { userDecider, type OidcAuditEvent } from '../../domain/user/decider.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';

export async function recordOidc(ports: Ports, userId: string, event: OidcAuditEvent): Promise<void> {
  await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), { kind: 'recordOidc', event, actor: userId });
}

/** The login's per-IP throttle engaged by wrong passwords for names nobody holds: an event of the instance. */
export async function recordAnonymousThrottle(ports: Ports, input: { clientId: string; clientIp: string; waitSeconds: number }): Promise<void> {
  await runCommand(ports.events, { type: 'instance', id: INSTANCE_ID }, instanceDecider, { kind: 'recordThrottle', ...input, actor: LOGIN_ACTOR });
}
