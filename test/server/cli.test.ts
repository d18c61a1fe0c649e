// The `keyhold` command line, run as a user runs it (the build, through the
// bin) and as `npm run dev` runs it (the sources through tsx): --help and
// --version answer and exit 0 without starting anything; an unknown argument
// is refused with exit code 2 and a message naming it. --version names the
// commit a build was made from; the sources, not built, say "unknown".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/server/config-variables.js';
import { repoRoot } from '../support/keyhold.js';

const version = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version as string;

/** `git describe`'s form for a commit: its abbreviated hash, "-dirty" when the tree differed from it. */
const BUILT_COMMIT = /^([0-9a-f]{10,})(-dirty)?$/;

const COMMANDS = [
  ['keyhold (the build)', ['bin/keyhold.js'], BUILT_COMMIT],
  ['npm run dev (tsx)', ['--import', 'tsx', 'src/main.ts'], /^unknown$/],
] as const;

/** Runs the command with a port that would be taken if a server started by mistake. */
function keyhold(command: readonly string[], args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [...command, ...args], {
    cwd: repoRoot,
    env: { ...process.env, KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: path.join(repoRoot, '.no-such-dir-keyhold-cli-test'), ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe.each(COMMANDS)('%s', (_label, command, commit) => {
  it('--help: usage and every environment variable, exit 0, no server', () => {
    for (const flag of ['--help', '-h']) {
      const res = keyhold(command, [flag]);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^Usage: keyhold \[config \| --help \| --version\]/);
      for (const name of CONFIG_VARIABLES.flatMap((v) => v.names)) expect(res.stdout).toContain(name);
      expect(res.stdout).not.toContain('listening');
      expect(res.stderr).toBe('');
    }
    expect(fs.existsSync(path.join(repoRoot, '.no-such-dir-keyhold-cli-test'))).toBe(false);
  });

  it("--version: package.json's version and the commit built from, exit 0", () => {
    for (const flag of ['--version', '-v']) {
      const res = keyhold(command, [flag]);
      expect(res.code).toBe(0);
      const [, printedVersion, printedCommit] = /^(\S+) \(commit (\S+)\)\n$/.exec(res.stdout) ?? [];
      expect(printedVersion, res.stdout).toBe(version);
      expect(printedCommit, res.stdout).toMatch(commit);
      const hash = BUILT_COMMIT.exec(printedCommit!)?.[1];
      // A user takes the printed commit to the repository: it must be one of its commits.
      if (hash) expect(spawnSync('git', ['cat-file', '-t', hash], { cwd: repoRoot, encoding: 'utf8' }).stdout.trim()).toBe('commit');
    }
  });

  it('an unknown argument: exit 2, the argument named on stderr, nothing started', () => {
    for (const args of [['--prot', '80'], ['start'], ['--help', '--bogus']]) {
      const res = keyhold(command, args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(`unknown argument "${args.find((a) => a !== '--help')}"`);
      expect(res.stdout).toBe('');
    }
    expect(fs.existsSync(path.join(repoRoot, '.no-such-dir-keyhold-cli-test'))).toBe(false);
  });
});

describe('keyhold config (the build)', () => {
  it('prints each setting with its source, secrets redacted, warnings on stderr, exit 0; a configuration a start refuses: its error, exit 2', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyhold-config-'));
    try {
      const key = 'cli-test-masterkey-0123456789-abcdefghij';
      fs.writeFileSync(path.join(dir, 'masterkey'), `${key}\n`);
      const env = {
        KEYHOLD_MASTERKEY_FILE: path.join(dir, 'masterkey'),
        DATABASE_URL: 'postgres://keyhold:cli-hunter2@db.internal/keyhold',
        KEYHOLD_ISUER: 'https://login.example.com',
      };
      const res = keyhold(['bin/keyhold.js'], ['config'], env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`^KEYHOLD_MASTERKEY +\\(set, redacted\\) +file \\(KEYHOLD_MASTERKEY_FILE=${dir}/masterkey\\)$`, 'm'));
      expect(res.stdout).toMatch(/^DATABASE_URL +postgres:\/\/keyhold:REDACTED@db\.internal\/keyhold +environment$/m);
      expect(res.stdout).toMatch(/^KEYHOLD_ISSUER +http:\/\/localhost:<port> +default$/m);
      expect(res.stdout + res.stderr).not.toContain(key);
      expect(res.stdout + res.stderr).not.toContain('cli-hunter2');
      expect(res.stderr).toBe('keyhold: warning: KEYHOLD_ISUER is not a Keyhold setting; did you mean KEYHOLD_ISSUER?\n');

      const refused = keyhold(['bin/keyhold.js'], ['config'], { ...env, KEYHOLD_MASTERKEY: key });
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe('keyhold: invalid configuration: KEYHOLD_MASTERKEY_FILE: KEYHOLD_MASTERKEY and KEYHOLD_MASTERKEY_FILE are both set; set only one of them\n');
      expect(fs.existsSync(path.join(repoRoot, '.no-such-dir-keyhold-cli-test'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
