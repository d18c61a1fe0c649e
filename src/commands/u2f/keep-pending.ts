// Which security-key histories the U2F commands keep copies of
// (../recent-copies.ts): a registration while it is pending. RegisterU2F →
// the browser's ceremony → VerifyU2FRegistration follow seconds apart, usually
// on this process; once verified, replaced or removed the next command on the
// key is rare, and its copy is dropped.
import type { StoredEvent } from '../../domain/events/index.js';

export const keepWhilePending = (last: StoredEvent): boolean => last.type === 'u2f.registration.started';
