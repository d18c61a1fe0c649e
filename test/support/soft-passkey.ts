// A software passkey: a resident, user-verifying authenticator over the
// software authenticator (./soft-authenticator.ts). It remembers the user
// handle it was registered for and counts its signatures, as a hardware one
// does; each method can be told to leave out exactly one thing.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { createSoftAuthenticator, type SoftAuthenticator } from './soft-authenticator.js';

export interface SoftPasskey {
  readonly key: SoftAuthenticator;
  readonly credentialId: string;
  /** The registration answer to creation options (their challenge, rp.id, user.id); UV set unless `uv: false`. */
  register(options: { challenge: string; rp: { id: string }; user: { id: string } }, origin: string, o?: { uv?: boolean }): RegistrationResponseJSON;
  /** An assertion for `challenge`, with the user handle registered and the next counter; each can be overridden. */
  assert(challenge: string, origin: string, rpId: string, o?: { uv?: boolean; userHandle?: string | null; signCount?: number }): AuthenticationResponseJSON;
}

export function createSoftPasskey(): SoftPasskey {
  const key = createSoftAuthenticator();
  let userHandle: string | undefined;
  let counter = 0;
  return {
    key,
    credentialId: key.credentialId,
    register(options, origin, o = {}) {
      userHandle = options.user.id;
      return key.makeRegistration({
        challenge: options.challenge,
        origin,
        rpId: options.rp.id,
        flags: { uv: o.uv ?? true, be: true, bs: true },
        transports: ['internal', 'hybrid'],
      });
    },
    assert(challenge, origin, rpId, o = {}) {
      const signCount = o.signCount ?? ++counter;
      const handle = o.userHandle === null ? undefined : (o.userHandle ?? userHandle);
      return key.makeAssertion({ challenge, origin, rpId, signCount, uv: o.uv ?? true, userHandle: handle });
    },
  };
}
