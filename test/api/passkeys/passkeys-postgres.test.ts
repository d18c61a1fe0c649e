// Passkeys on PostgreSQL (passkeys.suite.ts); needs TEST_DATABASE_URL (skipped by name, said loudly, without one).
import { passkeySuite } from './passkeys.suite.js';

passkeySuite('passkeys (PostgreSQL)', { postgres: true });
