// The screenshots in docs/screenshots/ (shown in the README and the manual) are
// taken by the console's browser test. They are current when they were taken of
// the console's present sources: docs/screenshots/fingerprint.json records the
// SHA-256 of those sources (every tracked file under console/ but the build) at
// the time. The browser test writes new screenshots and the new fingerprint
// whenever the sources changed since (or with UPDATE_SCREENSHOTS=1), and
// test/docs/screenshots.test.ts fails while the committed fingerprint is not the
// sources' — screenshots of a console that no longer looks so.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './keyhold.js';

export const SCREENSHOT_DIR = path.join(repoRoot, 'docs/screenshots');
const FINGERPRINT_FILE = path.join(SCREENSHOT_DIR, 'fingerprint.json');
const CONSOLE_DIR = path.join(repoRoot, 'console');

/** The console's sources: every file under console/ but its build output. */
function consoleSources(dir = CONSOLE_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'dist' || e.name === 'node_modules' ? [] : consoleSources(full);
      return [full];
    })
    .sort();
}

/** SHA-256 over the console's sources, each named by its path (line endings as committed). */
export function consoleFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of consoleSources()) {
    hash.update(path.relative(repoRoot, file).split(path.sep).join('/'));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The fingerprint recorded with the screenshots in the working tree. */
export function recordedFingerprint(): string | undefined {
  try {
    return (JSON.parse(readFileSync(FINGERPRINT_FILE, 'utf8')) as { console?: string }).console;
  } catch {
    return undefined;
  }
}

/** The fingerprint committed at HEAD (what a clone gets); the working tree's when git cannot say. */
export function committedFingerprint(): string | undefined {
  try {
    const text = execFileSync('git', ['show', 'HEAD:docs/screenshots/fingerprint.json'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return (JSON.parse(text) as { console?: string }).console;
  } catch {
    return recordedFingerprint();
  }
}

/** Whether the browser test should write docs/screenshots/ this run. */
export const screenshotsDue = (): boolean => process.env.UPDATE_SCREENSHOTS === '1' || recordedFingerprint() !== consoleFingerprint();

/** After the browser test wrote every screenshot: records which sources they show. */
export function recordScreenshots(): void {
  writeFileSync(FINGERPRINT_FILE, `${JSON.stringify({ console: consoleFingerprint() }, null, 2)}\n`);
}
