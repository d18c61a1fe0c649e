// Idempotency-Key across processes: this Keyhold and a child Keyhold on one
// PostgreSQL. 8 requests at once with one key, alternating between the two,
// make one app; a repeat on either process gets its answer.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restReason } from '../../support/errors.js';
import { startChildKeyhold, type ChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, postgresAvailable, tempDir } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

announcePostgresSkip('Idempotency-Key across two processes');

describe.skipIf(!postgresAvailable)('Idempotency-Key across two processes on one PostgreSQL', () => {
  let kh: TestKeyhold;
  let child: ChildKeyhold;
  let childDir: string;
  let projectId: string;

  beforeAll(async () => {
    kh = await startTestKeyhold({ postgres: true });
    childDir = await tempDir('keyhold-idem-child-');
    child = await startChildKeyhold({ dataDir: childDir, databaseUrl: kh.config.databaseUrl });
    projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Two processes' })).body.id;
  }, 90_000);
  afterAll(async () => {
    await child?.kill('SIGTERM');
    await kh?.close();
    if (childDir) await rm(childDir, { recursive: true, force: true });
  });

  /** AddOIDCApp on `base` with the key, as a client would send it. */
  async function addApp(base: string, name: string, key: string) {
    const res = await fetch(`${base}/management/v1/projects/${projectId}/apps/oidc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${kh.adminToken}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ name, redirectUris: ['https://shop.example/cb'] }),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('8 requests at once with one key on two processes: one app; every answer is its answer or "in progress"; a repeat on either gets it', async () => {
    const key = `raced-${process.pid}`;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => addApp(i % 2 === 0 ? kh.url : child.url, 'Raced across', key)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((a) => a.body.clientSecret)).size).toBe(1);
    for (const a of answers) if (a.status !== 200) expect({ status: a.status, reason: restReason(a.body) }).toEqual({ status: 409, reason: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
    const apps = (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, {})).body.result.filter((a: { name: string }) => a.name === 'Raced across');
    expect(apps).toHaveLength(1);
    for (const base of [kh.url, child.url]) {
      const again = await addApp(base, 'Raced across', key);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(ok[0]!.body);
    }
    // Another request under the key is refused on the other process too.
    const other = await addApp(child.url, 'Raced elsewhere', key);
    expect(other.status).toBe(422);
    expect(restReason(other.body)).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
