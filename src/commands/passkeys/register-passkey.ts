// RegisterPasskey: start a passkey registration for a user and answer the
// WebAuthn creation options for a discoverable credential with user
// verification. Who may: as for security keys (userForCredentialWrite); for
// human users only (USER_NOT_HUMAN, as authenticator apps). At
// most maxPendingPerUser registrations of a user are pending at once, as for
// security keys: a new one ends the oldest in the same transaction.
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { passkeyDecider } from '../../domain/passkey/decider.js';
import { pendingToReplace } from '../../domain/u2f/decider.js';
import { encodeBase64Url } from '../../domain/webauthn/base64url.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { registrationStart, type CreationOptions } from '../registration-start.js';
import { runCommands, serializedOn, target } from '../run.js';
import { written, type Written } from '../written.js';

export interface RegisterPasskeyInput {
  userId: string;
  /** The WebAuthn RP id; empty: the first configured one. */
  domain: string;
  /** ZITADEL's PasskeyAuthenticator: which kind of authenticator the browser should offer (absent: any). */
  authenticator?: 'platform' | 'cross-platform';
}

export async function registerPasskey(
  ports: Ports,
  { caller }: Call,
  input: RegisterPasskeyInput,
): Promise<{ passkeyId: string; written: Written; creationOptions: CreationOptions }> {
  const { webauthn, rpId, user, challenge, expiresAt, creationOptions } = await registrationStart(ports, caller, input);
  // A passkey signs in on its own: a machine user's (one leaked token away) would be a login nobody watches.
  if (user.kind !== 'human') throw new KeyholdError('USER_NOT_HUMAN', { userId: user.id });
  const passkeyId = ports.ids.newId();
  const now = () => ports.clock.now();
  const { events, exclude } = await serializedOn(ports.events, { type: 'user', id: user.id }, async () => {
    const [keys, tokens] = await Promise.all([ports.lookups.passkeysOf(user.id), ports.lookups.u2fOf(user.id)]);
    const replaced = pendingToReplace(
      keys.filter((k) => k.state === 'pending'),
      webauthn.maxPendingPerUser,
    );
    const start = { kind: 'start' as const, orgId: user.orgId, rpId, challenge: encodeBase64Url(challenge), expiresAt, actor: caller.userId };
    return {
      events: await runCommands(ports.events, [
        target({ type: 'passkey', id: passkeyId }, passkeyDecider(passkeyId, user.id, now), start, { creates: true }),
        ...replaced.map((k) => target({ type: 'passkey', id: k.id }, passkeyDecider(k.id, user.id, now), { kind: 'replace' as const, by: passkeyId, actor: caller.userId })),
      ]),
      // The user's ready credentials of both kinds: an authenticator holding one is not asked to make another.
      exclude: [...keys, ...tokens].flatMap((t) => (t.state === 'ready' && t.rpId === rpId && t.credentialId !== null ? [t.credentialId] : [])),
    };
  });
  return { passkeyId, written: written(events, passkeyId), creationOptions: creationOptions(exclude, { passkey: input.authenticator ? { attachment: input.authenticator } : {} }) };
}
