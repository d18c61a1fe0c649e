// Scale-out correctness: two Keyhold processes on one PostgreSQL database
// (design §5). Started together on an empty database they race the bootstrap:
// one admin, one PAT file. Then, across both processes at once: same-name
// AddOIDCApp → exactly one 200, the rest 409 APP_NAME_TAKEN; verifies of one
// registration → exactly one 200, the rest 400 U2F_ALREADY_VERIFIED.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restReason } from '../support/errors.js';
import { startChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, type PostgresDatabase } from '../support/databases.js';
import { createSoftAuthenticator } from '../support/soft-authenticator.js';

announcePostgresSkip('scale-out on PostgreSQL');

const ORIGIN = 'https://login.example';
const env = { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN };

interface Pair {
  pg: PostgresDatabase;
  dirs: string[];
  children: ChildKeyhold[];
  sql: postgres.Sql;
}

/** Two children started at the same moment on one fresh, empty database, each with its own PAT file. */
async function racedPair(): Promise<Pair> {
  const pg = await createPostgresDatabase();
  const dirs = [await tempDir('keyhold-scale-a-'), await tempDir('keyhold-scale-b-')];
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  const pair: Pair = { pg, dirs, children: [], sql };
  const started = await Promise.allSettled(dirs.map((dataDir) => startChildKeyhold({ dataDir, databaseUrl: pg.url, env })));
  for (const s of started) if (s.status === 'fulfilled') pair.children.push(s.value);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await closePair(pair);
    throw failed.reason;
  }
  return pair;
}

async function closePair(pair: Pair): Promise<void> {
  await Promise.all(pair.children.map((c) => c.kill('SIGTERM')));
  await pair.sql.end({ timeout: 5 });
  await pair.pg.drop();
  await Promise.all(pair.dirs.map((d) => rm(d, { recursive: true, force: true })));
}

/** What a raced bootstrap left: exactly one admin, one PAT file, and the token works on both processes. */
async function expectOneAdmin(pair: Pair): Promise<string> {
  const tokens = pair.children.map((c) => c.adminToken).filter((t): t is string => Boolean(t));
  expect(tokens).toHaveLength(1);
  const [counts] = await pair.sql`
    select (select count(*)::int from events where aggregate_type = 'instance') as instance_events,
           (select count(*)::int from events where type = 'org.added') as orgs,
           (select count(*)::int from users) as users,
           (select count(*)::int from personal_access_tokens) as pats,
           (select count(*)::int from memberships where scope_type = 'instance') as instance_admins`;
  // The machine admin (bootstrap) and the human admin (keyhold-admin, made once at start).
  expect(counts).toEqual({ instance_events: 3, orgs: 1, users: 2, pats: 1, instance_admins: 2 });
  for (const child of pair.children) {
    const res = await child.rest('POST', '/management/v1/projects/_search', {}, { token: tokens[0] });
    expect(res.status).toBe(200);
  }
  return tokens[0];
}

describe.skipIf(!postgresAvailable)('two Keyhold processes on one PostgreSQL', () => {
  let pair: Pair | undefined;
  let token: string;
  let a: ChildKeyhold;
  let b: ChildKeyhold;

  beforeAll(async () => {
    pair = await racedPair();
    [a, b] = pair.children;
  }, 90_000);
  afterAll(async () => {
    if (pair) await closePair(pair);
  });

  it('bootstrap raced by both on an empty database: one admin, one PAT file', async () => {
    token = await expectOneAdmin(pair!);
    // A second race on another empty database, so the outcome is not one lucky ordering.
    const again = await racedPair();
    try {
      await expectOneAdmin(again);
    } finally {
      await closePair(again);
    }
  }, 90_000);

  it('concurrent same-name AddOIDCApp across both processes: exactly one 200, the rest 409 APP_NAME_TAKEN', async () => {
    const project = await a.rest('POST', '/management/v1/projects', { name: 'scale-out' }, { token });
    expect(project.status).toBe(200);
    const projectId = project.body.id as string;
    const ROUNDS = 12;
    const PER_PROCESS = 6;
    const wins = { a: 0, b: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const name = `same-name-${round}`;
      // Names differ only in case on half the requests: the name is unique case-insensitively.
      const calls = [a, b].flatMap((child) =>
        Array.from({ length: PER_PROCESS }, (_, i) =>
          child
            .rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: i % 2 ? name.toUpperCase() : name, redirectUris: ['https://app.example/cb'] }, { token })
            .then((res) => ({ child, res })),
        ),
      );
      const results = await Promise.all(calls);
      const ok = results.filter((r) => r.res.status === 200);
      const rejected = results.filter((r) => r.res.status !== 200);
      expect(ok).toHaveLength(1);
      expect(rejected.map((r) => `${r.res.status} ${restReason(r.res.body)}`)).toEqual(Array(2 * PER_PROCESS - 1).fill('409 APP_NAME_TAKEN'));
      wins[ok[0].child === a ? 'a' : 'b']++;
      // The store holds exactly the winner: one row, one app.added with this name, no loser's events.
      const apps = await pair!.sql`select id from apps where project_id = ${projectId} and lower(name) = ${name}`;
      expect(apps.map((r) => r.id)).toEqual([ok[0].res.body.appId]);
      const added = await pair!.sql`select aggregate_id from events where type = 'app.added' and lower(payload->>'name') = ${name}`;
      expect(added.map((r) => r.aggregate_id)).toEqual([ok[0].res.body.appId]);
    }
    console.log(`[scale] same-name AddOIDCApp: ${ROUNDS} rounds × ${2 * PER_PROCESS} concurrent requests over 2 processes; one winner per round (process A ${wins.a}, B ${wins.b})`);
  }, 60_000);

  it('concurrent VerifyU2FRegistration of one registration across both processes: exactly one 200', async () => {
    const user = await a.rest('POST', '/management/v1/users/machine', { userName: 'scale-key-owner', name: 'Key owner' }, { token });
    expect(user.status).toBe(200);
    const userId = user.body.userId as string;
    const ROUNDS = 8;
    const PER_PROCESS = 4;
    const wins = { a: 0, b: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const reg = await (round % 2 ? b : a).rest('POST', `/v2/users/${userId}/u2f`, {}, { token });
      expect(reg.status).toBe(200);
      const { u2fId } = reg.body;
      const { challenge, rp } = reg.body.publicKeyCredentialCreationOptions;
      // Two different authenticators answer the same registration; each process gets both.
      const keys = [createSoftAuthenticator(), createSoftAuthenticator()];
      const credentials = keys.map((k) => k.makeRegistration({ challenge, origin: ORIGIN, rpId: rp.id }));
      const calls = [a, b].flatMap((child, c) =>
        Array.from({ length: PER_PROCESS }, (_, i) => {
          const k = (i + c) % 2;
          return child
            .rest('POST', `/v2/users/${userId}/u2f/${u2fId}`, { publicKeyCredential: credentials[k], tokenName: `key ${k}` }, { token })
            .then((res) => ({ child, k, res }));
        }),
      );
      const results = await Promise.all(calls);
      const ok = results.filter((r) => r.res.status === 200);
      const rejected = results.filter((r) => r.res.status !== 200);
      expect(ok).toHaveLength(1);
      expect(rejected.map((r) => `${r.res.status} ${restReason(r.res.body)}`)).toEqual(Array(2 * PER_PROCESS - 1).fill('400 U2F_ALREADY_VERIFIED'));
      wins[ok[0].child === a ? 'a' : 'b']++;
      // The winner's credential is the one stored, once.
      const events = await pair!.sql`select type, payload->>'credentialId' as credential from events where aggregate_type = 'u2f' and aggregate_id = ${u2fId} order by sequence`;
      expect(events).toEqual([
        { type: 'u2f.registration.started', credential: null },
        { type: 'u2f.verified', credential: keys[ok[0].k].credentialId },
      ]);
      const [row] = await pair!.sql`select state, credential_id, sequence from u2f_tokens where id = ${u2fId}`;
      expect(row).toEqual({ state: 'ready', credential_id: keys[ok[0].k].credentialId, sequence: 2 });
    }
    console.log(`[scale] VerifyU2FRegistration: ${ROUNDS} registrations × ${2 * PER_PROCESS} concurrent verifies (2 authenticators) over 2 processes; one winner each (process A ${wins.a}, B ${wins.b})`);
  }, 60_000);
});
