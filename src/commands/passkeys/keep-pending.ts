// Which passkey histories the passkey commands keep copies of
// (../recent-copies.ts): a registration while it is pending, as for security keys.
import type { StoredEvent } from '../../domain/events/index.js';

export const keepPasskeyWhilePending = (last: StoredEvent): boolean => last.type === 'passkey.registration.started';
