// The OpenID Provider's audit trail of a user (issue 17: "throttling, grants
// and their revocation are events"): the login's throttle engaging, a grant
// stored, a grant or one token revoked. Not caller-authorized: the provider
// records them for the user concerned (the actor). Never a token, a token's
// id or a password: the event types say what they carry.
import { userDecider, type OidcAuditEvent } from '../../domain/user/decider.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';

export async function recordOidc(ports: Ports, userId: string, event: OidcAuditEvent): Promise<void> {
  await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), { kind: 'recordOidc', event, actor: userId });
}
