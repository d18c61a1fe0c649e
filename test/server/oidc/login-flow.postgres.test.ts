// The login suite (login-flow.suite.ts) on PostgreSQL (TEST_DATABASE_URL; skipped by name without one).
import { loginFlowSuite } from './login-flow.suite.js';

loginFlowSuite('postgres');
