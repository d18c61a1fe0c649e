// What the operator is told about the configuration: `keyhold config` (every
// setting, its value and its source, secrets redacted; a refused configuration
// as a start refuses it) and the warnings of a start (a KEYHOLD_* variable that
// is no setting, settings that disagree).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { CONFIG_VARIABLES } from '../../src/server/config-variables.js';
import { printConfig } from '../../src/server/config-command.js';
import { closestVariable, configReport, configWarnings, redactDatabaseUrl, startWarnings } from '../../src/server/config-report.js';

const KEY = 'masterkey-0123456789-0123456789-abcdef';
const messages = (env: Record<string, string>) => configWarnings(env, loadConfig(env)).map((w) => w.message);

describe('a KEYHOLD_* variable that is no setting', () => {
  it('is a warning naming the closest setting', () => {
    expect(messages({ KEYHOLD_ISUER: 'https://login.example.com' })).toEqual(['KEYHOLD_ISUER is not a Keyhold setting; did you mean KEYHOLD_ISSUER?']);
    expect(closestVariable('KEYHOLD_MASTERKEY_FLIE')).toBe('KEYHOLD_MASTERKEY_FILE');
    expect(closestVariable('KEYHOLD_RATE_LIMIT_PER_SEC')).toBe('KEYHOLD_RATE_LIMIT_PER_SECOND');
    expect(closestVariable('KEYHOLD_PROT')).toBe('KEYHOLD_PORT');
  });

  it('without a near setting, points to --help; known variables and other prefixes are not warned of', () => {
    expect(messages({ KEYHOLD_FEATURE_FLAGS_FOR_TESTS: '1' })).toEqual(['KEYHOLD_FEATURE_FLAGS_FOR_TESTS is not a Keyhold setting; `keyhold --help` lists the settings']);
    const known = Object.fromEntries(CONFIG_VARIABLES.flatMap((v) => v.names).filter((n) => n.startsWith('KEYHOLD_')).map((n) => [n, '']));
    expect(configWarnings({ ...known, PATH: '/bin', DATABASE_URL_FLIE: 'x' }, loadConfig({}))).toEqual([]);
  });
});

describe('settings that disagree', () => {
  it('none with the defaults, nor with an issuer alone', () => {
    expect(messages({})).toEqual([]);
    expect(messages({ KEYHOLD_ISSUER: 'https://login.example.com' })).toEqual([]);
    expect(messages({ KEYHOLD_ISSUER: 'https://login.example.com', KEYHOLD_WEBAUTHN_RP_IDS: 'example.com' })).toEqual([]);
  });

  it("RP ids or origins the issuer's host does not match: a warning naming both settings and values", () => {
    expect(messages({ KEYHOLD_ISSUER: 'https://login.example.com', KEYHOLD_WEBAUTHN_RP_IDS: 'other.example', KEYHOLD_WEBAUTHN_ORIGINS: 'https://other.example' })).toEqual([
      "the login cannot use security keys: KEYHOLD_ISSUER's host login.example.com is none of KEYHOLD_WEBAUTHN_RP_IDS (other.example) nor under one of them; users with a key, and users of a forceMfa org, cannot log in",
    ]);
    expect(messages({ KEYHOLD_ISSUER: 'https://login.example.com', KEYHOLD_WEBAUTHN_RP_IDS: 'example.com', KEYHOLD_WEBAUTHN_ORIGINS: 'https://app.example.com' })).toEqual([
      "the login cannot use security keys: KEYHOLD_ISSUER's origin https://login.example.com is not in KEYHOLD_WEBAUTHN_ORIGINS (https://app.example.com); users with a key, and users of a forceMfa org, cannot log in",
    ]);
    // A start logs this one once, when it listens (start.ts), not also among its early warnings.
    const env = { KEYHOLD_ISSUER: 'https://login.example.com', KEYHOLD_WEBAUTHN_RP_IDS: 'other.example', KEYHOLD_WEBAUTHN_ORIGINS: 'https://other.example' };
    expect(startWarnings(env, loadConfig(env))).toEqual([]);
    // Without KEYHOLD_ISSUER the issuer is the port's own.
    expect(messages({ KEYHOLD_WEBAUTHN_RP_IDS: 'example.com', KEYHOLD_WEBAUTHN_ORIGINS: 'https://login.example.com' })[0]).toMatch(/KEYHOLD_ISSUER's host localhost is none of KEYHOLD_WEBAUTHN_RP_IDS \(example\.com\)/);
  });

  it('a setting the others make ignored', () => {
    expect(messages({ DATABASE_URL: 'postgres://db/kh', KEYHOLD_MASTERKEY: KEY, KEYHOLD_PGLITE_SHARED_BUFFERS: '64MB' })).toEqual([
      'KEYHOLD_PGLITE_SHARED_BUFFERS is ignored: DATABASE_URL is set, so Keyhold uses PostgreSQL, not the embedded PGlite',
    ]);
    expect(messages({ KEYHOLD_DATABASE_POOL_SIZE: '50' })).toEqual([
      'KEYHOLD_DATABASE_POOL_SIZE is ignored: DATABASE_URL is not set, so Keyhold uses the embedded PGlite (one connection)',
    ]);
    expect(messages({ KEYHOLD_RATE_LIMIT_BURST: '50' })).toEqual([
      'KEYHOLD_RATE_LIMIT_BURST (50) is ignored: KEYHOLD_RATE_LIMIT_PER_SECOND is 0, which switches rate limiting off',
    ]);
  });
});

describe('keyhold config', () => {
  const secretFiles = (file: string) => {
    if (file === '/run/secrets/mk') return `${KEY}\n`;
    throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
  };

  it('lists every setting once with its value and source; secrets redacted', () => {
    const env = {
      KEYHOLD_MASTERKEY_FILE: '/run/secrets/mk',
      DATABASE_URL: 'postgres://keyhold:db-hunter2@db.internal:5432/keyhold?sslmode=require&password=other-hunter2',
      KEYHOLD_ISSUER: 'https://login.example.com',
      KEYHOLD_ISUER: 'typo',
    };
    const { text, warnings } = configReport(env, secretFiles);
    const lines = text.trimEnd().split('\n');
    const settings = CONFIG_VARIABLES.filter((v) => !v.fileOf).flatMap((v) => v.names);
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(settings);
    const line = (name: string) => lines.find((l) => l.startsWith(`${name} `))!.split(/\s{2,}/);
    expect(line('KEYHOLD_MASTERKEY')).toEqual(['KEYHOLD_MASTERKEY', '(set, redacted)', 'file (KEYHOLD_MASTERKEY_FILE=/run/secrets/mk)']);
    expect(line('DATABASE_URL')).toEqual(['DATABASE_URL', 'postgres://keyhold:REDACTED@db.internal:5432/keyhold?sslmode=require&password=REDACTED', 'environment']);
    expect(line('KEYHOLD_ISSUER')).toEqual(['KEYHOLD_ISSUER', 'https://login.example.com', 'environment']);
    expect(line('KEYHOLD_WEBAUTHN_RP_IDS')).toEqual(['KEYHOLD_WEBAUTHN_RP_IDS', 'login.example.com', 'default']);
    expect(line('KEYHOLD_PORT')).toEqual(['KEYHOLD_PORT', '8080', 'default']);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('hunter2');
    expect(warnings.map((w) => w.message)).toEqual(['KEYHOLD_ISUER is not a Keyhold setting; did you mean KEYHOLD_ISSUER?']);
  });

  it('an invalid configuration: the error a start prints, exit code 2; else exit 0, warnings on stderr', () => {
    const out: string[] = [];
    const err: string[] = [];
    const sink = (to: string[]) => ({ write: (s: string) => to.push(s) });
    expect(printConfig({ KEYHOLD_PORT: 'eighty' }, sink(out), sink(err))).toBe(2);
    expect(out).toEqual([]);
    expect(err).toEqual(['keyhold: invalid configuration: KEYHOLD_PORT: expected a whole number, got "eighty"\n']);
    err.length = 0;
    expect(printConfig({ KEYHOLD_PROT: '80' }, sink(out), sink(err))).toBe(0);
    expect(out.join('')).toMatch(/^KEYHOLD_PORT +8080 +default$/m);
    expect(err).toEqual(['keyhold: warning: KEYHOLD_PROT is not a Keyhold setting; did you mean KEYHOLD_PORT?\n']);
    expect(() => configReport({ KEYHOLD_MASTERKEY_FILE: '/run/secrets/none' }, secretFiles)).toThrow(ConfigError);
  });

  it('redacts the password of any PostgreSQL URL, and nothing else of it', () => {
    expect(redactDatabaseUrl('postgres://kh@/kh?host=/var/run/postgresql')).toBe('postgres://kh@/kh?host=/var/run/postgresql');
    expect(redactDatabaseUrl('postgres://kh:s3cret@/kh?host=/var/run/postgresql')).toBe('postgres://kh:REDACTED@/kh?host=/var/run/postgresql');
    // Passwords with unencoded ?, # or / (generated passwords often hold them): no parser takes the URL, the password still goes.
    expect(redactDatabaseUrl('postgres://u:se?cret@h/db')).toBe('postgres://u:REDACTED@h/db');
    expect(redactDatabaseUrl('postgres://u:SE#CRET@127.0.0.1:1/db')).toBe('postgres://u:REDACTED@127.0.0.1:1/db');
    expect(redactDatabaseUrl('postgres://u:a/b@h:5432/db?sslmode=require')).toBe('postgres://u:REDACTED@h:5432/db?sslmode=require');
    expect(redactDatabaseUrl('postgresql://kh:s3cret@db:5432/kh')).toBe('postgresql://kh:REDACTED@db:5432/kh');
    expect(redactDatabaseUrl('postgres://kh:a@b:c/d@db/kh')).toBe('postgres://kh:REDACTED@db/kh');
    expect(redactDatabaseUrl('postgres://db:5432/kh?user=kh&PassWord=s3cret&sslmode=require')).toBe('postgres://db:5432/kh?user=kh&PassWord=REDACTED&sslmode=require');
  });
});
