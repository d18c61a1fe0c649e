// Runs the one event-store contract against embedded PGlite and, when
// TEST_DATABASE_URL is set, against a fresh PostgreSQL database.
import { describe } from 'vitest';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable } from '../support/databases.js';
import { eventStoreContract } from './event-store.contract.js';

eventStoreContract('PGlite', freshPglite);

announcePostgresSkip('event store contract: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  eventStoreContract('PostgreSQL', freshPostgres);
});
