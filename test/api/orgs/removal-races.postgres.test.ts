// Org removal races (removal-races.suite.ts) on PostgreSQL (TEST_DATABASE_URL; skipped by name without one).
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { startTestKeyhold } from '../../support/keyhold.js';
import { removalRacesSuite } from './removal-races.suite.js';

announcePostgresSkip('org removal races on PostgreSQL');

removalRacesSuite('PostgreSQL', () => startTestKeyhold({ postgres: true }), !postgresAvailable);
