// What one request costs in SQL statements, counted by the store itself
// (keyhold_sql_statements_total on GET /metrics): a whole password login with
// PKCE and its code exchange, and each token-endpoint call the bench times.
// Unlike a rate these counts do not depend on the machine, so a change that
// adds statements to a hot path fails here, on PGlite and on PostgreSQL, with
// the figure it reached. Each operation is measured a few times and its
// fewest counted, so that a statement of the background work (the
// housekeeping sweep, PostgreSQL's storage probe) landing in one window does
// not fail the test.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

announcePostgresSkip('SQL statements per request on PostgreSQL');

const REDIRECT = 'http://localhost:5178/cb';
const PASSWORD = 'counted statements 4711';

/**
 * The most each operation may send (statements / explicit transactions).
 * Lower them when a change saves statements; raising one needs a reason.
 */
const STATEMENT_BOUNDS = {
  // Measured 24 / 15 with warm caches: per step, the interaction read and saved (the resume takes it,
  // read and deleted in one), the login settings (default org, policies, the project's org, offered
  // providers) from their 1 s caches, a guess reserved and released (2 + 1), whether the user holds a
  // second factor read with its password's hash (its keys and app read only when it does), two user
  // events appended on the kept fold (each an insert carrying the user's version move), the library's
  // session, grant, code and token saves, the session's own row, the code read with its grant and its
  // session. The bound leaves four for a machine so loaded that a login's steps outlast the 1 s caches
  // (runs under load measured warm + 2, and warm + 3 on a machine half as fast with the whole suite
  // beside it, in every one of the five tries), and one transaction for the same reason.
  login: { statements: 28, transactions: 16 },
  client_credentials: { statements: 1, transactions: 1 },
  refresh: { statements: 4, transactions: 3 },
  introspection: { statements: 1, transactions: 0 },
  userinfo: { statements: 1, transactions: 0 },
} as const;

type Operation = keyof typeof STATEMENT_BOUNDS;
interface Counted {
  statements: number;
  transactions: number;
}

async function counted(base: string): Promise<Counted> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { statements: value('keyhold_sql_statements_total'), transactions: value('keyhold_sql_transactions_total') };
}

/** The fewest statements (and transactions) `op` sent in `runs` runs, one after another. */
async function fewest(base: string, op: () => Promise<unknown>, runs = 5): Promise<Counted> {
  let best: Counted = { statements: Infinity, transactions: Infinity };
  for (let i = 0; i < runs; i++) {
    const before = await counted(base);
    await op();
    const after = await counted(base);
    // Each count's fewest on its own: background work (a sweep's transaction) may land in the run
    // whose statements were fewest, and would then be counted as the request's.
    best = { statements: Math.min(best.statements, after.statements - before.statements), transactions: Math.min(best.transactions, after.transactions - before.transactions) };
  }
  return best;
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function statementSuite(name: string, start: () => Promise<TestKeyhold>, skip: boolean) {
  describe.skipIf(skip)(`SQL statements per request, ${name}`, () => {
    let kh: TestKeyhold;
    let base: string;
    let app: { clientId: string; clientSecret: string };
    let machine: { clientId: string; clientSecret: string };
    let username: string;
    const measured: Partial<Record<Operation, Counted>> = {};

    beforeAll(async () => {
      kh = await start();
      base = `http://localhost:${kh.port}`;
      const project = await kh.rest('POST', '/management/v1/projects', { name: 'Counted' });
      const created = await addApp(kh, project.body.id, { redirectUris: [REDIRECT], devMode: true, authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'] });
      app = { clientId: created.clientId, clientSecret: created.clientSecret! };
      username = `counted-${randomBytes(4).toString('hex')}`;
      const user = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'C', familyName: 'S' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
      expect(user.status, JSON.stringify(user.body)).toBe(200);
      const m = await kh.rest('POST', '/management/v1/users/machine', { userName: `${username}-m`, name: 'Counted machine' });
      const secret = await kh.rest('PUT', `/management/v1/users/${m.body.userId}/secret`, {});
      machine = { clientId: secret.body.clientId, clientSecret: secret.body.clientSecret };
    }, 60_000);
    afterAll(async () => {
      console.log(`SQL statements per request, ${name}: ${JSON.stringify(measured)}`);
      await kh?.close();
    });

    const token = async (client: { clientId: string; clientSecret: string }, form: Record<string, string>) => {
      const res = await fetch(`${base}/oauth/v2/token`, { method: 'POST', headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
      const body = (await res.json()) as Record<string, string>;
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };

    /** A whole login through the login UI, as the bench makes it: authorize → username → password → back with a code → code exchange with PKCE. */
    const login = async (offline = false) => {
      const verifier = randomBytes(32).toString('base64url');
      const url = new URL('/oauth/v2/authorize', base);
      const params = { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: offline ? 'openid profile offline_access' : 'openid profile', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: randomBytes(8).toString('hex'), ...(offline ? { prompt: 'consent' } : {}) };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const back = await logIn(browser(base), url, username, PASSWORD, { consent: offline });
      return token(app, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier });
    };

    const within = (op: Operation, got: Counted) => {
      measured[op] = got;
      expect(got.statements, `${op}: statements`).toBeLessThanOrEqual(STATEMENT_BOUNDS[op].statements);
      expect(got.transactions, `${op}: transactions`).toBeLessThanOrEqual(STATEMENT_BOUNDS[op].transactions);
    };

    it('a password login with PKCE, its code exchange included', async () => {
      await login(); // the first login of a process prepares statements and warms caches
      within('login', await fewest(base, () => login()));
    }, 30_000);

    it('client credentials, refresh with rotation, introspection, userinfo', async () => {
      await token(machine, { grant_type: 'client_credentials' });
      within('client_credentials', await fewest(base, () => token(machine, { grant_type: 'client_credentials' })));
      let tokens = await login(true);
      within(
        'refresh',
        await fewest(base, async () => {
          tokens = await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
        }),
      );
      const introspect = async () => {
        const res = await fetch(`${base}/oauth/v2/introspect`, { method: 'POST', headers: { authorization: basic(app.clientId, app.clientSecret), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: tokens.access_token! }) });
        expect(((await res.json()) as { active?: boolean }).active).toBe(true);
      };
      within('introspection', await fewest(base, introspect));
      const userinfo = async () => {
        const res = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(res.status).toBe(200);
      };
      within('userinfo', await fewest(base, userinfo));
    }, 30_000);
  });
}

statementSuite('PGlite', () => startTestKeyhold(), false);
statementSuite('PostgreSQL', () => startTestKeyhold({ postgres: true }), !postgresAvailable);
