// Passkeys on embedded PGlite (passkeys.suite.ts).
import { passkeySuite } from './passkeys.suite.js';

passkeySuite('passkeys (PGlite)', {});
