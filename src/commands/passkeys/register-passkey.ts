// RegisterPasskey: start a passkey registration for a user and answer the
// WebAuthn creation options for a discoverable credential with user
// verification. Who may: as for security keys (userForCredentialWrite); for
// human users only (USER_NOT_HUMAN, as authenticator apps). At
// most maxPendingPerUser registrations of a user are pending at once, as for
// security keys: a new one ends the oldest in the same transaction.
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { passkeyDecider } from '../../domain/passkey/decider.js';
import { pendingToReplace } from '../../domain/u2f/decider.js';
import { encodeBase64Url } from '../../domain/webauthn/base64url.js';
import { buildCreationOptions } from '../../domain/webauthn/index.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
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
): Promise<{ passkeyId: string; written: Written; creationOptions: ReturnType<typeof buildCreationOptions> }> {
  const webauthn = ports.webauthn();
  const violations = requiredId('userId', input.userId);
  const rpId = input.domain.trim() || webauthn.rpIds[0]!;
  if (!webauthn.rpIds.includes(rpId)) {
    violations.push(violation('domain', { en: 'is not a configured relying party id', de: 'ist keine konfigurierte Relying-Party-ID' }));
  }
  if (violations.length) throw invalidRequest(violations);
  await userForCredentialWrite(ports.lookups, caller, input.userId);
  const user = await ports.lookups.userFacts(input.userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: input.userId });
  // A passkey signs in on its own: a machine user's (one leaked token away) would be a login nobody watches.
  if (user.kind !== 'human') throw new KeyholdError('USER_NOT_HUMAN', { userId: user.id });
  const challenge = ports.secrets.challenge();
  const passkeyId = ports.ids.newId();
  const expiresAt = new Date(ports.clock.now() + webauthn.timeoutMs).toISOString();
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
  const creationOptions = buildCreationOptions({
    rpId,
    rpName: webauthn.rpName,
    userId: user.id,
    userName: user.username,
    userDisplayName: user.displayName || user.name || user.username,
    challenge,
    timeoutMs: webauthn.timeoutMs,
    excludeCredentialIds: exclude,
    attestation: webauthn.attestation,
    passkey: input.authenticator ? { attachment: input.authenticator } : {},
  });
  return { passkeyId, written: written(events, passkeyId), creationOptions };
}
