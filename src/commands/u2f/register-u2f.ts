// RegisterU2F (design §7): start a security-key registration for a user and
// answer the WebAuthn creation options. At most maxPendingPerUser registrations
// of a user are pending at once: a new one ends the oldest in the same
// transaction (u2f.registration.replaced), so a user without any role cannot
// pile them up without end.
import { encodeBase64Url } from '../../domain/webauthn/base64url.js';
import { pendingToReplace, u2fDecider } from '../../domain/u2f/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports, U2fFacts } from '../ports.js';
import { registrationStart, type CreationOptions } from '../registration-start.js';
import { runCommands, serializedOn, target } from '../run.js';
import { written, type Written } from '../written.js';

/** WebAuthn's excludeCredentials: the user's verified keys for this relying party. */
function excludedCredentials(tokens: readonly U2fFacts[], rpId: string): string[] {
  return tokens.flatMap((t) => (t.state === 'ready' && t.rpId === rpId && t.credentialId !== null ? [t.credentialId] : []));
}

export async function registerU2f(
  ports: Ports,
  { caller }: Call,
  input: { userId: string; domain: string },
): Promise<{ u2fId: string; written: Written; creationOptions: CreationOptions }> {
  const { webauthn, rpId, user, challenge, expiresAt, creationOptions } = await registrationStart(ports, caller, input);
  const u2fId = ports.ids.newId();
  const now = () => ports.clock.now();
  // One at a time per user in this process, so that parallel calls cannot
  // each find room under the cap. (Processes sharing a PostgreSQL can each
  // add one past it at the same instant; the next call trims it again.)
  const { events, exclude } = await serializedOn(ports.events, { type: 'user', id: user.id }, async () => {
    const tokens = await ports.lookups.u2fOf(user.id);
    const replaced = pendingToReplace(
      tokens.filter((t) => t.state === 'pending'), // oldest first, as listed
      webauthn.maxPendingPerUser,
    );
    const start = { kind: 'start' as const, orgId: user.orgId, rpId, challenge: encodeBase64Url(challenge), expiresAt, actor: caller.userId };
    return {
      events: await runCommands(ports.events, [
        target({ type: 'u2f', id: u2fId }, u2fDecider(u2fId, user.id, now), start, { creates: true }),
        ...replaced.map((t) => target({ type: 'u2f', id: t.id }, u2fDecider(t.id, user.id, now), { kind: 'replace' as const, by: u2fId, actor: caller.userId })),
      ]),
      exclude: excludedCredentials(tokens, rpId),
    };
  });
  return { u2fId, written: written(events, u2fId), creationOptions: creationOptions(exclude) };
}
