// The contract stays clean: buf lint passes on proto/, and gen/ is what
// `npm run generate` produces from it today (nobody edited generated code,
// nobody forgot to regenerate).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/databases.js';
import { repoRoot } from '../support/keyhold.js';

const buf = path.join(repoRoot, 'node_modules/.bin/buf');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

describe('proto/ and gen/', () => {
  it('buf lint passes', () => {
    expect(() => execFileSync(buf, ['lint', 'proto'], { cwd: repoRoot, stdio: 'pipe' })).not.toThrow();
  });

  it('gen/ matches a fresh buf generate', async () => {
    const out = await tempDir('keyhold-gen-');
    execFileSync(buf, ['generate', '-o', out], { cwd: repoRoot, stdio: 'pipe' });
    const fresh = path.join(out, 'gen');
    const committed = path.join(repoRoot, 'gen');
    expect(filesUnder(fresh)).toEqual(filesUnder(committed));
    for (const f of filesUnder(committed)) {
      expect(fs.readFileSync(path.join(fresh, f), 'utf8'), f).toBe(fs.readFileSync(path.join(committed, f), 'utf8'));
    }
    fs.rmSync(out, { recursive: true, force: true });
  });
});
