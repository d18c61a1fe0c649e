// Is this response the answer to *this* registration? The type says which
// ceremony produced it; the challenge says which request it answers.
import type { ClientData } from './client-data.js';
import { reject } from './rejection.js';

export function checkCeremony(clientData: ClientData, expectedChallenge: string): void {
  if (clientData.type !== 'webauthn.create') {
    // An assertion (webauthn.get) replayed at the registration endpoint lands here.
    reject('WRONG_CEREMONY', 'clientDataJSON.type is not "webauthn.create"');
  }
  // Compared as strings, as WebAuthn §7.1 says: the client must echo the exact
  // base64url of the challenge. The detail never repeats what the client sent.
  if (clientData.challenge !== expectedChallenge) {
    reject('CHALLENGE_MISMATCH', 'the challenge in clientDataJSON is not the one issued for this registration');
  }
}
