// One-time artifacts under concurrency (single-use.suite.ts) across two
// Keyhold processes on one PostgreSQL: this test's Keyhold and a second one
// started as a child process (test/support/child-keyhold.ts), with the same
// issuer and master key; the requests of every round alternate between them.
import { afterAll } from 'vitest';
import { startChildKeyhold, type ChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, postgresAvailable, tempDir } from '../../support/databases.js';
import { startTestKeyhold } from '../../support/keyhold.js';
import { singleUseSuite } from './single-use.suite.js';

announcePostgresSkip('one-time artifacts under concurrency across two processes');

let child: ChildKeyhold | undefined;
afterAll(async () => {
  await child?.kill('SIGTERM');
});

singleUseSuite(
  'two processes on one PostgreSQL',
  async () => {
    const kh = await startTestKeyhold({ postgres: true });
    const issuer = `http://localhost:${kh.port}`;
    child = await startChildKeyhold({
      dataDir: await tempDir('keyhold-single-use-'),
      databaseUrl: kh.config.databaseUrl!,
      // One issuer, one WebAuthn origin: the second process serves the same logins.
      env: { KEYHOLD_ISSUER: issuer, KEYHOLD_WEBAUTHN_ORIGINS: issuer },
    });
    const second = `http://localhost:${new URL(child.url).port}`;
    return {
      kh,
      bases: [issuer, second],
      async close() {
        await child?.kill('SIGTERM');
        await kh.close();
      },
    };
  },
  !postgresAvailable,
);
