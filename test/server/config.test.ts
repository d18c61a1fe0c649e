// Config from the environment: defaults, and a clear error naming the variable.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.dataDir).toMatch(/\.keyhold$/);
    expect(c.adminPatFile).toBe(`${c.dataDir}/admin.pat`);
    expect(c.webauthn.rpIds).toEqual(['localhost']);
    expect(c.webauthn.origins).toEqual(['http://localhost:8080']);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.pgliteSharedBuffers).toBe('16MB');
    expect(c.rateLimit.perSecond).toBe(0);
  });

  it.each([
    [{ KEYHOLD_PORT: 'eighty' }, 'KEYHOLD_PORT'],
    [{ KEYHOLD_PORT: '70000' }, 'KEYHOLD_PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ KEYHOLD_WEBAUTHN_ORIGINS: 'https://a.example/path' }, 'KEYHOLD_WEBAUTHN_ORIGINS'],
    [{ KEYHOLD_WEBAUTHN_RP_IDS: 'bad domain' }, 'KEYHOLD_WEBAUTHN_RP_IDS'],
    [{ KEYHOLD_TLS_CERT: '/x.pem' }, 'KEYHOLD_TLS_KEY'],
    [{ KEYHOLD_LOG_LEVEL: 'loud' }, 'KEYHOLD_LOG_LEVEL'],
    [{ KEYHOLD_WEBAUTHN_ATTESTATION: 'indirect' }, 'KEYHOLD_WEBAUTHN_ATTESTATION'],
    [{ KEYHOLD_REQUEST_TIMEOUT_MS: '1000' }, 'KEYHOLD_HEADERS_TIMEOUT_MS'],
    [{ KEYHOLD_PGLITE_SHARED_BUFFERS: 'lots' }, 'KEYHOLD_PGLITE_SHARED_BUFFERS'],
    [{ KEYHOLD_PGLITE_SHARED_BUFFERS: '16' }, 'KEYHOLD_PGLITE_SHARED_BUFFERS'],
    [{ KEYHOLD_PGLITE_SHARED_BUFFERS: '64kB' }, 'KEYHOLD_PGLITE_SHARED_BUFFERS'],
  ])('%o → ConfigError naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('lists are trimmed; origins are normalised; TLS switches the default origin to https', () => {
    const c = loadConfig({ KEYHOLD_WEBAUTHN_RP_IDS: ' a.example , b.example ', KEYHOLD_WEBAUTHN_ORIGINS: 'https://a.example/, https://login.b.example', KEYHOLD_CORS_ORIGINS: 'https://app.example/' });
    expect(c.webauthn.rpIds).toEqual(['a.example', 'b.example']);
    expect(c.webauthn.origins).toEqual(['https://a.example', 'https://login.b.example']);
    expect(c.corsOrigins).toEqual(['https://app.example']);
    expect(loadConfig({ KEYHOLD_TLS_CERT: 'c', KEYHOLD_TLS_KEY: 'k', KEYHOLD_PORT: '8443' }).webauthn.origins).toEqual(['https://localhost:8443']);
  });
});

describe('the issuer, relying parties and proxies', () => {
  it("the WebAuthn RP id and origin default to the issuer's host and origin (an address host keeps localhost)", () => {
    const c = loadConfig({ KEYHOLD_ISSUER: 'https://Login.Example.com/' });
    expect(c.oidc.issuer).toBe('https://login.example.com');
    expect(c.webauthn.rpIds).toEqual(['login.example.com']);
    expect(c.webauthn.origins).toEqual(['https://login.example.com']);
    expect(c.webauthn.originsDefaulted).toBe(false);
    const byAddress = loadConfig({ KEYHOLD_ISSUER: 'http://127.0.0.1:8080' });
    expect(byAddress.webauthn.rpIds).toEqual(['localhost']);
    expect(byAddress.webauthn.originsDefaulted).toBe(true);
  });

  it.each([
    [{ KEYHOLD_ISSUER: 'https://login.example.com/auth' }, 'KEYHOLD_ISSUER', /has a path/],
    [{ KEYHOLD_ISSUER: 'http://login.example.com', KEYHOLD_TLS_CERT: 'c', KEYHOLD_TLS_KEY: 'k' }, 'KEYHOLD_ISSUER', /use https:\/\/login\.example\.com/],
    [{ KEYHOLD_WEBAUTHN_RP_IDS: 'example.com' }, 'KEYHOLD_WEBAUTHN_RP_IDS', /"example\.com" has no origin .*default: http:\/\/localhost:8080/],
    [{ KEYHOLD_WEBAUTHN_RP_IDS: 'example.com,other.example', KEYHOLD_WEBAUTHN_ORIGINS: 'https://login.example.com' }, 'KEYHOLD_WEBAUTHN_RP_IDS', /"other\.example" has no origin/],
    [{ KEYHOLD_WEBAUTHN_RP_IDS: 'example.com', KEYHOLD_WEBAUTHN_ORIGINS: 'https://notexample.com' }, 'KEYHOLD_WEBAUTHN_RP_IDS', /"example\.com" has no origin/],
    [{ KEYHOLD_TRUSTED_PROXIES: '10.0.0.1, proxy.internal' }, 'KEYHOLD_TRUSTED_PROXIES', /"proxy\.internal" is not/],
    [{ KEYHOLD_TRUSTED_PROXIES: '10.0.0.0/33' }, 'KEYHOLD_TRUSTED_PROXIES', /"10\.0\.0\.0\/33" is not/],
    [{ KEYHOLD_TRUSTED_PROXIES: 'fd00::/129' }, 'KEYHOLD_TRUSTED_PROXIES', /"fd00::\/129" is not/],
    [{ KEYHOLD_TRUSTED_PROXIES: '10.0.0.0/8/8' }, 'KEYHOLD_TRUSTED_PROXIES', /is not/],
  ])('%o → ConfigError naming %s', (env, variable, problem) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
    expect(() => loadConfig(env)).toThrow(problem);
  });

  it('trusted proxies: addresses and CIDR ranges of both families; none by default', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ KEYHOLD_TRUSTED_PROXIES: ' 127.0.0.1 , 10.0.0.0/8, ::1, fd00::/8 ' }).trustedProxies).toEqual([
      { address: '127.0.0.1' },
      { address: '10.0.0.0', prefix: 8 },
      { address: '::1' },
      { address: 'fd00::', prefix: 8 },
    ]);
  });
});

describe('secrets from files (KEYHOLD_MASTERKEY_FILE, DATABASE_URL_FILE)', () => {
  const KEY = 'k'.repeat(40);
  const files = (contents: Record<string, string>) => (file: string) => {
    if (!(file in contents)) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
    return contents[file]!;
  };

  it("reads the value from the file, without one trailing newline", () => {
    const read = files({ '/run/secrets/mk': `${KEY}\n`, '/run/secrets/db': 'postgres://kh:pw@db/kh\r\n', '/run/secrets/two': `${KEY}\n\n` });
    const c = loadConfig({ KEYHOLD_MASTERKEY_FILE: '/run/secrets/mk', DATABASE_URL_FILE: '/run/secrets/db' }, read);
    expect(c.oidc.masterKey).toBe(KEY);
    expect(c.databaseUrl).toBe('postgres://kh:pw@db/kh');
    expect(loadConfig({ KEYHOLD_MASTERKEY_FILE: '/run/secrets/two' }, read).oidc.masterKey).toBe(`${KEY}\n`);
    // Given directly, as before.
    expect(loadConfig({ KEYHOLD_MASTERKEY: KEY }, read).oidc.masterKey).toBe(KEY);
  });

  it('refuses a variable and its file both set, naming both', () => {
    const read = files({ '/run/secrets/mk': KEY });
    expect(() => loadConfig({ KEYHOLD_MASTERKEY: KEY, KEYHOLD_MASTERKEY_FILE: '/run/secrets/mk' }, read)).toThrow(
      /^KEYHOLD_MASTERKEY_FILE: KEYHOLD_MASTERKEY and KEYHOLD_MASTERKEY_FILE are both set; set only one of them$/,
    );
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', DATABASE_URL_FILE: '/run/secrets/mk', KEYHOLD_MASTERKEY: KEY }, read)).toThrow(/DATABASE_URL and DATABASE_URL_FILE are both set/);
  });

  it('an unreadable or empty file: an error naming the variable and the path, never the content', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keyhold-secret-'));
    try {
      const missing = path.join(dir, 'missing');
      expect(() => loadConfig({ KEYHOLD_MASTERKEY_FILE: missing })).toThrow(new ConfigError('KEYHOLD_MASTERKEY_FILE', `cannot read "${missing}" (ENOENT)`));
      expect(() => loadConfig({ KEYHOLD_MASTERKEY_FILE: dir })).toThrow(/^KEYHOLD_MASTERKEY_FILE: cannot read ".*" \(EISDIR\)$/);
      const empty = path.join(dir, 'empty');
      writeFileSync(empty, '\n');
      expect(() => loadConfig({ KEYHOLD_MASTERKEY_FILE: empty })).toThrow(new ConfigError('KEYHOLD_MASTERKEY_FILE', `"${empty}" is empty`));
      // A bad value read from a file: the variable, the file, not the value.
      const short = path.join(dir, 'short');
      writeFileSync(short, 'hunter2-short-secret\n');
      const err = (() => {
        try {
          loadConfig({ KEYHOLD_MASTERKEY_FILE: short });
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err?.message).toBe(`KEYHOLD_MASTERKEY: must be at least 32 characters (e.g. \`openssl rand -base64 32\`) (read from KEYHOLD_MASTERKEY_FILE, "${short}")`);
      const url = path.join(dir, 'url');
      writeFileSync(url, 'mysql://kh:hunter2@db/kh\n');
      expect(() => loadConfig({ DATABASE_URL_FILE: url, KEYHOLD_MASTERKEY: KEY })).toThrow(/^DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL \(read from DATABASE_URL_FILE, ".*url"\)$/);
      expect(() => loadConfig({ DATABASE_URL_FILE: url, KEYHOLD_MASTERKEY: KEY })).not.toThrow(/hunter2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
