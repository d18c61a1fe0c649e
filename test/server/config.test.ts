// Config from the environment: defaults, and a clear error naming the variable.
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
    const c = loadConfig({ KEYHOLD_WEBAUTHN_RP_IDS: ' a.example , b.example ', KEYHOLD_CORS_ORIGINS: 'https://app.example/', KEYHOLD_TLS_CERT: 'c', KEYHOLD_TLS_KEY: 'k', KEYHOLD_PORT: '8443' });
    expect(c.webauthn.rpIds).toEqual(['a.example', 'b.example']);
    expect(c.corsOrigins).toEqual(['https://app.example']);
    expect(c.webauthn.origins).toEqual(['https://localhost:8443']);
  });
});
