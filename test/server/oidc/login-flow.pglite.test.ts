// The login suite (login-flow.suite.ts) on PGlite, the embedded default.
import { loginFlowSuite } from './login-flow.suite.js';

loginFlowSuite('pglite');
