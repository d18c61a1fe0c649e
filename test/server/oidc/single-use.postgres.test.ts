// One-time artifacts under concurrency (single-use.suite.ts) on one Keyhold on
// PostgreSQL (TEST_DATABASE_URL; skipped by name without one).
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { startTestKeyhold } from '../../support/keyhold.js';
import { singleUseSuite } from './single-use.suite.js';

announcePostgresSkip('one-time artifacts under concurrency on PostgreSQL');

singleUseSuite(
  'one Keyhold on PostgreSQL',
  async () => {
    const kh = await startTestKeyhold({ postgres: true });
    return { kh, bases: [`http://localhost:${kh.port}`], close: () => kh.close() };
  },
  !postgresAvailable,
);
