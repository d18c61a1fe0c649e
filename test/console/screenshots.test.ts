// The committed screenshots show the console as it is: the fingerprint
// committed beside them (docs/screenshots/fingerprint.json) is that of the
// console's present sources (support/screenshots.ts). The console's browser
// test takes new ones when the sources change; this fails until they are
// committed.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedFingerprint, consoleFingerprint, SCREENSHOT_DIR } from '../support/screenshots.js';

describe('the screenshots in docs/screenshots/', () => {
  it('were taken of the console as its sources are now', () => {
    for (const name of ['app-created.png', 'security-keys.png', 'project-roles.png', 'user-roles.png', 'organization.png', 'console-de.png']) expect(existsSync(path.join(SCREENSHOT_DIR, name)), name).toBe(true);
    expect(
      committedFingerprint(),
      'the console changed since docs/screenshots/ was taken: run test/console/console.test.ts and test/console/console-admin.test.ts (they take them anew) and commit docs/screenshots/',
    ).toBe(consoleFingerprint());
  });
});
