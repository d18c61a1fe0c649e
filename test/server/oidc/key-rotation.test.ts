// Signing-key rotation: the successor is published before it signs, the
// predecessor stays published while tokens it signed are valid; which process
// makes the successor is decided by the database (one kid per alg and slot).
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRotation, successorKid, type RotationPolicy } from '../../../src/server/oidc/keys.js';
import type { StoredOidcKey } from '../../../src/store/oidc-store.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

const key = (kid: string, alg: string, activeFrom: number, retireAt: number | null = null): StoredOidcKey => ({
  kid, use: 'sig', alg, publicJwk: {}, sealed: '', createdAt: new Date(activeFrom), activeFrom: new Date(activeFrom), retireAt: retireAt === null ? null : new Date(retireAt),
});

describe('planRotation', () => {
  const policy: RotationPolicy = { rotationSeconds: 100, aheadSeconds: 10, keepSeconds: 50 };
  it('publishes the successor aheadSeconds before its slot, with a kid every process computes alike; retires the predecessor keepSeconds after', () => {
    const stored = [key('r0', 'RS256', 0), key('e0', 'ES256', 0)];
    expect(planRotation(stored, new Date(89_000), policy)).toEqual({ add: [], retire: [] });
    const plan = planRotation(stored, new Date(90_000), policy);
    expect(plan.add).toEqual([
      { alg: 'RS256', activeFrom: new Date(100_000), kid: successorKid('RS256', new Date(100_000)) },
      { alg: 'ES256', activeFrom: new Date(100_000), kid: successorKid('ES256', new Date(100_000)) },
    ]);
    expect(plan.retire).toEqual([{ kid: 'r0', at: new Date(150_000) }, { kid: 'e0', at: new Date(150_000) }]);
    // Once the successor is there nothing more is due until its own slot.
    const next = [...stored, key(plan.add[0]!.kid, 'RS256', 100_000), key(plan.add[1]!.kid, 'ES256', 100_000)].map((k) => (k.kid.length === 2 ? { ...k, retireAt: new Date(150_000) } : k));
    expect(planRotation(next, new Date(95_000), policy)).toEqual({ add: [], retire: [] });
  });

  it('after a long pause the successor still gets published ahead of use (a later slot)', () => {
    const plan = planRotation([key('r0', 'RS256', 0)], new Date(1_000_000), policy);
    expect(plan.add[0]!.activeFrom.getTime()).toBe(1_100_000);
  });
});

describe('rotation on a running Keyhold (short interval)', () => {
  let kh: TestKeyhold;
  let base: string;
  beforeAll(async () => {
    // 6 s between publishing and signing: a login on a loaded machine took more than the 2 s first tried.
    kh = await startTestKeyhold({ env: { KEYHOLD_SIGNING_KEY_ROTATION_SECONDS: '8', KEYHOLD_SIGNING_KEY_PUBLISH_AHEAD_SECONDS: '6' } });
    base = `http://localhost:${kh.port}`;
  }, 60_000);
  afterAll(async () => kh?.close());

  it('a new key is in the JWKS before it signs; the old key stays in the JWKS while a token it signed is valid', async () => {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Rotation' })).body.id;
    expect((await kh.rest('POST', '/v2/users/human', { username: 'rotor', profile: { givenName: 'R', familyName: 'O' }, email: { email: 'r@example.com' }, password: { password: 'keys come and go 17', changeRequired: false } })).status).toBe(200);
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:5176/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const idToken = async () => {
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: 'http://localhost:5176/cb', scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
      const back = await logIn(browser(base), url, 'rotor', 'keys come and go 17');
      return (await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier })).id_token!;
    };
    const rsKids = async () => ((await (await fetch(`${base}/oauth/v2/keys`)).json()).keys as { kid: string; alg: string }[]).filter((k) => k.alg === 'RS256').map((k) => k.kid);

    const initial = await rsKids();
    // Wait until a successor is published (within the rotation interval).
    let published: string[] = initial;
    for (let i = 0; i < 80 && published.length === initial.length; i++) {
      await new Promise((r) => setTimeout(r, 200));
      published = await rsKids();
    }
    const successor = published.find((k) => !initial.includes(k));
    expect(successor).toBeDefined();
    // Published but not yet signing: a token issued now is signed by an old key.
    const old = await idToken();
    const oldKid = decodeProtectedHeader(old).kid!;
    expect(oldKid).not.toBe(successor);
    expect(initial).toContain(oldKid);
    // Later the successor signs; the old key is still published and the old token still verifies.
    let kid = oldKid;
    for (let i = 0; i < 60 && kid !== successor; i++) {
      await new Promise((r) => setTimeout(r, 250));
      kid = decodeProtectedHeader(await idToken()).kid!;
    }
    expect(kid).toBe(successor);
    expect(await rsKids()).toContain(oldKid);
    const { payload } = await jwtVerify(old, createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`)), { issuer: base, audience: app.clientId });
    expect(payload.exp! * 1000).toBeGreaterThan(Date.now());
    // Its retire time in the database: not before the token expires.
    const rows = await kh.database.sql.query<{ retire_at: Date | string | null }>({ text: 'select retire_at from oidc_keys where kid = $1', params: [oldKid] });
    expect(new Date(rows[0]!.retire_at!).getTime()).toBeGreaterThanOrEqual(payload.exp! * 1000);
  }, 60_000);
});
