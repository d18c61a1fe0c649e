// Org removal races (removal-races.suite.ts) on PGlite.
import { startTestKeyhold } from '../../support/keyhold.js';
import { removalRacesSuite } from './removal-races.suite.js';

removalRacesSuite('PGlite', () => startTestKeyhold());
