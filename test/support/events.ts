// Event payloads the store, runner and decider tests share.
import type { EventPayloads } from '../../src/domain/events/index.js';

/** A `u2f.verified` payload of a `none`-attested ES256 key; override what a test looks at. */
export function verifiedPayload(overrides: Partial<EventPayloads['u2f.verified']> = {}): EventPayloads['u2f.verified'] {
  return {
    userId: 'user',
    tokenName: 'Key',
    credentialId: 'cred',
    publicKey: 'pk',
    algorithm: -7,
    format: 'none',
    aaguid: '00000000-0000-0000-0000-000000000000',
    signCount: 0,
    transports: [],
    backupEligible: false,
    backedUp: false,
    userVerified: false,
    rpId: 'localhost',
    ...overrides,
  };
}
