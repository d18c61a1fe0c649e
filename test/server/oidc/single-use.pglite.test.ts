// One-time artifacts under concurrency (single-use.suite.ts) on one Keyhold on PGlite.
import { startTestKeyhold } from '../../support/keyhold.js';
import { singleUseSuite } from './single-use.suite.js';

singleUseSuite('one Keyhold on PGlite', async () => {
  const kh = await startTestKeyhold();
  return { kh, bases: [`http://localhost:${kh.port}`], close: () => kh.close() };
});
