// Secrets stay secret. One Keyhold logging at trace level issues every kind of
// secret it has — OIDC client secrets (BASIC and POST, and regenerated), personal
// access tokens, WebAuthn registration challenges, machine users' client secrets
// and app key files — over REST and gRPC, then is
// sent a batch of failing calls that carry those secrets back (near-miss and
// misplaced tokens, a credential answering another registration's challenge).
// Then: no log line holds any of them, no error answer echoes them, and the
// database holds client secrets and tokens only as hashes.
import { Code, ConnectError } from '@connectrpc/connect';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../gen/keyhold/auth/v1/auth_pb.js';
import { OIDCAuthMethodType } from '../../gen/keyhold/management/v1/app_pb.js';
import { KeyType, ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { hashToken } from '../../src/domain/identity/tokens.js';
import { hashClientSecret } from '../../src/domain/oidc/client-secret.js';
import { apps, personalAccessTokens } from '../../src/store/schema.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { createSoftAuthenticator } from '../support/soft-authenticator.js';
import { plainUser, startRegistration } from '../support/u2f.js';
import { bearer, ORG_HEADER } from '../support/identity.js';

const ORIGIN = 'https://login.example';
let kh: TestKeyhold;
const clientSecrets: { appId: string; secret: string }[] = [];
const pats: { tokenId: string; token: string }[] = [];
const challenges: string[] = [];
/** Machine users' client secrets (the current one last per user), and the private keys of app key files. */
const machineSecrets: { userId: string; secret: string }[] = [];
const privateKeys: string[] = [];
/** The PEM's base64 body, one line: what a leak would show even with the line breaks escaped. */
const pemBody = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '').slice(0, 120);
/** Every answer to a failing call, as text (REST bodies; gRPC message, details and metadata). */
const errorAnswers: string[] = [];

const secrets = () => [...clientSecrets.map((c) => c.secret), ...pats.map((p) => p.token), kh.adminToken];
/** Near misses: the real value with its last character changed. */
const nearMiss = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');

async function failingRpc(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (e) {
    const err = ConnectError.from(e);
    errorAnswers.push(JSON.stringify({ message: err.rawMessage, details: err.details, metadata: [...err.metadata] }, (_k, v) => (typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v)));
    return err;
  }
  throw new Error('expected the call to fail');
}

async function failingRest(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await kh.rest(method, path, body, headers);
  expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
  errorAnswers.push(typeof res.body === 'string' ? res.body : JSON.stringify(res.body));
  errorAnswers.push(JSON.stringify([...res.headers]));
  return res;
}

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_LOG_LEVEL: 'trace', KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN } });
  const mgmt = kh.client(ManagementService);
  const projectId = (await mgmt.addProject({ name: 'Secrets' })).id;

  // Client secrets: BASIC and POST, over gRPC and REST, and regenerated both ways.
  for (const authMethodType of [OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC, OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_POST]) {
    const res = await mgmt.addOIDCApp({ projectId, name: `grpc-${authMethodType}`, authMethodType, redirectUris: ['https://a.example/cb'] });
    clientSecrets.push({ appId: res.appId, secret: res.clientSecret });
  }
  for (const authMethodType of ['OIDC_AUTH_METHOD_TYPE_BASIC', 'OIDC_AUTH_METHOD_TYPE_POST']) {
    const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: `rest-${authMethodType}`, authMethodType, redirectUris: ['https://a.example/cb'] });
    clientSecrets.push({ appId: res.body.appId, secret: res.body.clientSecret });
  }
  const regenerated = await mgmt.regenerateOIDCClientSecret({ projectId, appId: clientSecrets[0].appId });
  const regeneratedRest = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${clientSecrets[2].appId}/oidc_config/_generate_client_secret`, {});
  clientSecrets.push({ appId: clientSecrets[0].appId, secret: regenerated.clientSecret }, { appId: clientSecrets[2].appId, secret: regeneratedRest.body.clientSecret });
  for (const c of clientSecrets) expect(c.secret).toMatch(/^[A-Za-z0-9]{64}$/);

  // Personal access tokens, over gRPC and REST.
  const user = await plainUser(kh); // one PAT through the helper (gRPC)
  const me = (await kh.client(AuthService, 'grpc', user.token).getMyUser({})).user!;
  pats.push({ tokenId: '', token: user.token });
  const viaRest = await kh.rest('POST', `/management/v1/users/${user.userId}/pats`, {});
  pats.push({ tokenId: viaRest.body.tokenId, token: viaRest.body.token });
  const viaGrpc = await mgmt.addPersonalAccessToken({ userId: me.userId });
  pats.push({ tokenId: viaGrpc.tokenId, token: viaGrpc.token });

  // Registration challenges, over gRPC and REST.
  const key = createSoftAuthenticator();
  const a = await startRegistration(kh, user.userId, user.token);
  const b = await startRegistration(kh, user.userId, user.token);
  const c = await kh.rest('POST', `/v2/users/${user.userId}/u2f`, {}, { authorization: `Bearer ${user.token}` });
  challenges.push(a.challenge, b.challenge, c.body.publicKeyCredentialCreationOptions.challenge);

  // Machine users' client secrets (gRPC, REST, regenerated) and app key files (gRPC, REST).
  for (const via of ['grpc', 'rest', 'rest'] as const) {
    const { userId } = via === 'grpc' || machineSecrets.length === 0 ? await mgmt.addMachineUser({ userName: `secret-bot-${machineSecrets.length}`, name: 'Bot' }) : machineSecrets[machineSecrets.length - 1]!;
    const secret = via === 'grpc' ? (await mgmt.generateMachineSecret({ userId })).clientSecret : (await kh.rest('PUT', `/management/v1/users/${userId}/secret`, {})).body.clientSecret;
    machineSecrets.push({ userId, secret });
  }
  const keyAppId = (await mgmt.addOIDCApp({ projectId, name: 'key-app', authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT, redirectUris: ['https://a.example/cb'] })).appId;
  const viaGrpcKey = await mgmt.addAppKey({ projectId, appId: keyAppId, type: KeyType.JSON });
  const viaRestKey = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${keyAppId}/keys`, { type: 'KEY_TYPE_JSON' });
  privateKeys.push(JSON.parse(Buffer.from(viaGrpcKey.keyDetails).toString('utf8')).key, JSON.parse(Buffer.from(viaRestKey.body.keyDetails, 'base64').toString('utf8')).key);
  // Near-miss machine secrets at the token endpoint.
  for (const { secret } of machineSecrets) {
    const res = await fetch(`http://localhost:${kh.port}/oauth/v2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'machine-nobody', client_secret: nearMiss(secret) }) });
    errorAnswers.push(await res.text());
  }

  // --- failing calls that carry the secrets back --------------------------------
  for (const s of secrets()) {
    for (const wrong of [nearMiss(s), s + 'x', s]) {
      // A near-miss token, a token with a suffix, and a client secret used as a token.
      if (wrong === s && !clientSecrets.some((c) => c.secret === s)) continue;
      await failingRest('GET', '/auth/v1/users/me', undefined, bearer(wrong));
      await failingRpc(kh.client(AuthService, 'grpc', wrong).getMyUser({}));
      await failingRpc(kh.client(ManagementService, 'connect', wrong).addProject({ name: 'nope' }));
    }
    await failingRest('GET', '/auth/v1/users/me', undefined, { authorization: `Basic ${s}` });
    await failingRest('GET', '/auth/v1/users/me', undefined, { authorization: `Bearer ${s} ${s}` });
  }
  // A real token in the wrong org context, and a valid token without rights.
  await failingRest('POST', '/management/v1/projects', { name: 'x' }, { ...bearer(pats[1].token), [ORG_HEADER]: nearMiss(kh.adminToken).slice(0, 40) });
  await failingRpc(kh.client(ManagementService, 'grpc', user.token).addOIDCApp({ projectId, name: 'denied' }));
  // A credential answering registration a's challenge, sent to registration b; and one with a near-miss challenge.
  const forA = key.makeRegistration({ challenge: a.challenge, origin: ORIGIN, rpId: a.rpId });
  const mismatch = await failingRest('POST', `/v2/users/${user.userId}/u2f/${b.u2fId}`, { publicKeyCredential: forA, tokenName: 'k' }, bearer(user.token));
  expect(mismatch.body.details[0].reason).toBe('CHALLENGE_MISMATCH');
  const nearChallenge = key.makeRegistration({ challenge: nearMiss(b.challenge), origin: ORIGIN, rpId: b.rpId });
  const err = await failingRpc(kh.client(UserService, 'grpc', user.token).verifyU2FRegistration({ userId: user.userId, u2fId: b.u2fId, publicKeyCredential: nearChallenge as never, tokenName: 'k' }));
  expect(err.code).toBe(Code.InvalidArgument);
  // A wrong origin and RP ID too (messages that might quote client data).
  const wrongOrigin = key.makeRegistration({ challenge: b.challenge, origin: `https://${b.challenge}.evil.example`, rpId: b.rpId });
  await failingRest('POST', `/v2/users/${user.userId}/u2f/${b.u2fId}`, { publicKeyCredential: wrongOrigin, tokenName: 'k' }, bearer(user.token));
  const badType = key.makeRegistration({ challenge: b.challenge, origin: ORIGIN, rpId: b.rpId, clientDataType: `webauthn.${b.challenge}` });
  await failingRest('POST', `/v2/users/${user.userId}/u2f/${b.u2fId}`, { publicKeyCredential: badType, tokenName: 'k' }, bearer(user.token));
}, 120_000);
afterAll(async () => kh?.close());

describe('secrets', () => {
  it('were issued: 6 client secrets, 3 PATs (+ the admin token), 3 challenges, all distinct', () => {
    expect(clientSecrets).toHaveLength(6);
    expect(pats).toHaveLength(3);
    expect(challenges).toHaveLength(3);
    const all = [...secrets(), ...challenges];
    expect(new Set(all).size).toBe(all.length);
    expect(machineSecrets).toHaveLength(3);
    expect(privateKeys.every((k) => k.startsWith('-----BEGIN PRIVATE KEY-----'))).toBe(true);
    console.log(`[secrets] ${all.length} secrets issued, ${errorAnswers.length} failing answers captured, ${kh.logLines.length} log lines at trace level`);
  });

  it('appear in no log line', () => {
    expect(kh.logLines.length).toBeGreaterThan(0);
    const log = kh.logLines.join('\n');
    for (const s of [...secrets(), ...challenges, ...machineSecrets.map((m) => m.secret), ...privateKeys.map(pemBody)]) expect(log.includes(s), `a log line contains ${s.slice(0, 6)}…`).toBe(false);
    // Nor their near misses that were sent back, nor anything that looks like a token.
    for (const s of secrets()) expect(log.includes(nearMiss(s))).toBe(false);
    expect(log).not.toMatch(/kh_[A-Za-z0-9_-]{20,}/);
  });

  it('are echoed by no error answer', () => {
    expect(errorAnswers.length).toBeGreaterThan(50);
    const answers = errorAnswers.join('\n');
    for (const s of [...secrets(), ...challenges, ...machineSecrets.map((m) => m.secret)]) {
      expect(answers.includes(s), `an error answer contains ${s.slice(0, 6)}…`).toBe(false);
      expect(answers.includes(nearMiss(s)), `an error answer contains a near miss of ${s.slice(0, 6)}…`).toBe(false);
    }
  });

  it('client secrets are stored only as their SHA-256, in the apps table and nowhere else', async () => {
    const rows = await kh.database.db.select().from(apps);
    // The current secret of each app: [1] and [3] as issued, [4] and [5] regenerated over [0] and [2].
    const [first, , second] = clientSecrets;
    for (const { appId, secret } of [clientSecrets[1], clientSecrets[3], clientSecrets[4], clientSecrets[5]]) {
      expect(rows.find((r) => r.id === appId)!.clientSecretHash).toBe(hashClientSecret(secret));
    }
    // The replaced ones are gone.
    for (const old of [first, second]) expect(rows.find((r) => r.id === old.appId)!.clientSecretHash).not.toBe(hashClientSecret(old.secret));
    expect(rows.every((r) => r.clientSecretHash === null || /^[0-9a-f]{64}$/.test(r.clientSecretHash))).toBe(true);
  });

  it('tokens are stored only as their SHA-256', async () => {
    const rows = await kh.database.db.select().from(personalAccessTokens);
    for (const { token } of pats) expect(rows.some((r) => r.tokenHash === hashToken(token))).toBe(true);
    expect(rows.some((r) => r.tokenHash === hashToken(kh.adminToken))).toBe(true);
  });

  it('no table — events and read models alike — holds a secret or token in clear', async () => {
    const tables = ['events', 'instances', 'orgs', 'projects', 'users', 'memberships', 'personal_access_tokens', 'apps', 'u2f_tokens', 'machine_users', 'app_keys'];
    let rows = 0;
    for (const table of tables) {
      const result = (await kh.database.db.execute(sql.raw(`select * from ${table}`))) as unknown as { rows?: unknown[] } | unknown[];
      const list = Array.isArray(result) ? result : (result.rows ?? []);
      rows += list.length;
      const text = JSON.stringify(list, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
      for (const s of [...secrets(), ...machineSecrets.map((m) => m.secret), ...privateKeys.map(pemBody)]) expect(text.includes(s), `${table} holds ${s.slice(0, 6)}…`).toBe(false);
    }
    expect(rows).toBeGreaterThan(20);
    // The events that carry them hold the hash instead.
    const events = JSON.stringify(await kh.database.db.execute(sql.raw(`select payload from events`)));
    for (const { secret } of clientSecrets) expect(events.includes(hashClientSecret(secret))).toBe(true);
    for (const { token } of pats) expect(events.includes(hashToken(token))).toBe(true);
    for (const { secret } of machineSecrets) expect(events.includes(hashClientSecret(secret))).toBe(true);
    // Each machine user's current secret is in machine_users as its hash.
    const machines = (await kh.database.db.execute(sql.raw(`select user_id, client_secret_hash from machine_users where client_secret_hash is not null`))) as unknown as { rows?: any[] } | any[];
    const list = Array.isArray(machines) ? machines : (machines.rows ?? []);
    for (const userId of new Set(machineSecrets.map((m) => m.userId))) {
      const current = machineSecrets.filter((m) => m.userId === userId).at(-1)!;
      expect(list.find((r: any) => r.user_id === userId)?.client_secret_hash).toBe(hashClientSecret(current.secret));
    }
  });
});
