// What RegisterU2F and RegisterPasskey start alike (u2f/register-u2f.ts,
// passkeys/register-passkey.ts): the RP id (the first configured one when
// none is named; one not configured is 400 `domain`), the credential-write
// rule (userForCredentialWrite: the user, or a contained
// user.credential.write), the whole user (the WebAuthn options carry its
// names), a fresh challenge and the registration's expiry; and the creation
// options once the credentials to exclude are known.
import { invalidRequest, KeyholdError, violation } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { buildCreationOptions } from '../domain/webauthn/index.js';
import { userForCredentialWrite } from '../access/access.js';
import type { Caller } from '../access/caller.js';
import type { Ports } from './ports.js';

export type CreationOptions = ReturnType<typeof buildCreationOptions>;

export async function registrationStart(ports: Ports, caller: Caller, input: { userId: string; domain: string }) {
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
  const challenge = ports.secrets.challenge();
  const expiresAt = new Date(ports.clock.now() + webauthn.timeoutMs).toISOString();
  return {
    webauthn,
    rpId,
    user,
    challenge,
    expiresAt,
    /** The browser's creation options for this registration, `exclude`: the user's credentials under this RP id. */
    creationOptions: (exclude: string[], extra: Pick<Parameters<typeof buildCreationOptions>[0], 'passkey'> = {}): CreationOptions =>
      buildCreationOptions({
        rpId,
        rpName: webauthn.rpName,
        userId: user.id,
        userName: user.username,
        userDisplayName: user.displayName || user.name || user.username,
        challenge,
        timeoutMs: webauthn.timeoutMs,
        excludeCredentialIds: exclude,
        attestation: webauthn.attestation,
        ...extra,
      }),
  };
}
