// A DPoP proof is used once, under concurrency: 8 requests at once carrying
// the same proof of a bound token, 20 rounds, and exactly one is answered each
// round — the others are refused as a replay (DPOP_PROOF_INVALID, "used
// before"). On PGlite, on PostgreSQL, and split across two Keyhold processes
// (a child process) sharing one PostgreSQL and one issuer.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildKeyhold, type ChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, postgresAvailable, tempDir } from '../../support/databases.js';
import { dpopKey, proof, type DpopKey } from '../../support/dpop.js';
import { restReason } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const ROUNDS = 20;
const CONCURRENT = 8;
const ME = '/auth/v1/users/me';

/** A machine user's opaque client-credentials token, bound to a fresh key, from `kh`. */
async function boundMachineToken(kh: TestKeyhold): Promise<{ token: string; key: DpopKey; userId: string }> {
  const added = await kh.rest('POST', '/management/v1/users/machine', { userName: `replayed-${Math.random().toString(36).slice(2)}`, name: 'Replayed' });
  const secret = await kh.rest('PUT', `/management/v1/users/${added.body.userId}/secret`, {});
  const config = await oidc.discovery(new URL(`http://localhost:${kh.port}`), secret.body.clientId, undefined, oidc.ClientSecretBasic(secret.body.clientSecret), {
    execute: [oidc.allowInsecureRequests],
  });
  const key = await dpopKey();
  const tokens = await oidc.clientCredentialsGrant(config, undefined, { DPoP: key.handle(config) });
  return { token: tokens.access_token, key, userId: added.body.userId };
}

/**
 * Each round: one proof for GET /auth/v1/users/me, sent CONCURRENT times at
 * once, to the bases in turn; the statuses and reasons of every round.
 */
async function rounds(issuer: string, bases: readonly string[], bound: { token: string; key: DpopKey }) {
  const outcomes: { ok: number; replays: number; other: string[] }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dpop = await proof(bound.key, { htm: 'GET', htu: `${issuer}${ME}`, token: bound.token });
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const res = await fetch(`${bases[i % bases.length]}${ME}`, { headers: { authorization: `DPoP ${bound.token}`, dpop } });
        const body = await res.json();
        return res.status === 200 ? 'OK' : `${res.status} ${restReason(body)} ${body.message}`;
      }),
    );
    outcomes.push({
      ok: answers.filter((a) => a === 'OK').length,
      replays: answers.filter((a) => /^401 DPOP_PROOF_INVALID .*used before/.test(a)).length,
      other: answers.filter((a) => a !== 'OK' && !/^401 DPOP_PROOF_INVALID .*used before/.test(a)),
    });
  }
  return outcomes;
}

const exactlyOneEachRound = Array.from({ length: ROUNDS }, () => ({ ok: 1, replays: CONCURRENT - 1, other: [] }));

describe('one process', () => {
  for (const backend of ['PGlite', 'PostgreSQL'] as const) {
    describe.skipIf(backend === 'PostgreSQL' && !postgresAvailable)(backend, () => {
      let kh: TestKeyhold;
      beforeAll(async () => {
        kh = await startTestKeyhold({ postgres: backend === 'PostgreSQL' });
      }, 90_000);
      afterAll(async () => kh?.close());

      it(`${CONCURRENT} concurrent uses of one proof, ${ROUNDS} rounds: exactly one answered each round`, async () => {
        const base = `http://localhost:${kh.port}`;
        const bound = await boundMachineToken(kh);
        expect(await rounds(base, [base], bound)).toEqual(exactlyOneEachRound);
      }, 120_000);
    });
  }
});

announcePostgresSkip('DPoP proofs replayed across two processes');

describe.skipIf(!postgresAvailable)('two processes on one PostgreSQL', () => {
  let a: TestKeyhold;
  let b: ChildKeyhold;
  let issuer: string;

  beforeAll(async () => {
    a = await startTestKeyhold({ postgres: true });
    issuer = `http://localhost:${a.port}`;
    // The second process names the same issuer: a proof's htu is the issuer's URL of the endpoint, whichever process answers.
    b = await startChildKeyhold({ dataDir: await tempDir('keyhold-dpop-b-'), databaseUrl: a.config.databaseUrl!, env: { KEYHOLD_ISSUER: issuer } });
  }, 120_000);
  afterAll(async () => {
    await b?.kill('SIGTERM');
    await a?.close();
  });

  it(`${CONCURRENT} concurrent uses of one proof split over both, ${ROUNDS} rounds: exactly one answered each round`, async () => {
    const bound = await boundMachineToken(a);
    // The token works on both (one database), each with its own proof.
    for (const at of [issuer, b.url]) {
      const res = await fetch(`${at}${ME}`, { headers: { authorization: `DPoP ${bound.token}`, dpop: await proof(bound.key, { htm: 'GET', htu: `${issuer}${ME}`, token: bound.token }) } });
      expect(res.status, at).toBe(200);
    }
    expect(await rounds(issuer, [issuer, b.url], bound)).toEqual(exactlyOneEachRound);
  }, 180_000);
});
