// Passkeys on PostgreSQL (passkeys.suite.ts); needs TEST_DATABASE_URL.
import { describe } from 'vitest';
import { passkeySuite } from './passkeys.suite.js';

if (process.env.TEST_DATABASE_URL) passkeySuite('passkeys (PostgreSQL)', { postgres: true });
else describe.skip('passkeys (PostgreSQL): TEST_DATABASE_URL not set', () => {});
