// A login of a user with a long history against one of a new user (fast
// where users feel it). A user's history grows by two events per login
// (its success, the grant the login stored), and by one per wrong password;
// the commands of a login fold the user's history (src/commands/run.ts). This
// gives one user `--events` such events (written straight into the events
// table, as years of logins would have left them) and times whole password
// logins of both users, one after the other, through the login UI: the first
// login of each after the start, then the median of the next ones.
//
//   node --import tsx bench/long-history.ts [--events 20000] [--logins 7]
//
// Needs PostgreSQL (BENCH_PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres);
// Keyhold runs in this process (test/support/keyhold.ts), so the CPU time
// reported is the server's and this client's together.
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { startTestKeyhold } from '../test/support/keyhold.js';
import { addApp, browser, logIn } from '../test/support/oidc-login.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const EVENTS = arg('events', 20_000);
const LOGINS = arg('logins', 7);
const PASSWORD = 'a long bench passphrase 4711';
const REDIRECT = 'https://app.example.com/auth/callback';

const adminUrl = process.env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
const name = `keyhold_long_history_${Date.now()}`;
await admin.unsafe(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const kh = await startTestKeyhold({ env: { DATABASE_URL: url.toString() } });
const pg = postgres(url.toString(), { max: 1, onnotice: () => {} });
try {
  const base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'long history' })).body.id;
  const human = async (username: string) =>
    (await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'Long', familyName: 'History' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } })).body.userId as string;
  await human('new-user');
  const longId = await human('long-history');
  // Years of logins: alternating successes and stored grants, as the login writes them.
  const [{ sequence, org }] = await pg`select sequence, org_id as org from users where id = ${longId}`;
  await pg.unsafe(
    `insert into events (aggregate_type, aggregate_id, sequence, type, payload, resource_owner, creator)
     select 'user', $1, $2::int + g,
       case when g % 2 = 1 then 'user.login.succeeded' else 'user.oidc.grant.saved' end,
       case when g % 2 = 1 then '{"clientId":"01m8old0000000000000000000","amr":["pwd"]}'::jsonb
            else '{"grantId":"old-grant-0000000000000000000000000000000000","clientId":"01m8old0000000000000000000","scope":"openid profile"}'::jsonb end,
       $3, $1
     from generate_series(1, $4::int) g`,
    [longId, sequence, org, EVENTS],
  );
  await pg`update users set sequence = ${Number(sequence) + EVENTS} where id = ${longId}`;
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' });

  async function login(username: string): Promise<{ ms: number; cpuMs: number }> {
    const verifier = randomBytes(32).toString('base64url');
    const u = new URL('/oauth/v2/authorize', base);
    const params = { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: 's' };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    const t = performance.now();
    const c = process.cpuUsage();
    const back = await logIn(browser(base), u, username, PASSWORD);
    if (!back.searchParams.get('code')) throw new Error(`the login of ${username} came back without a code`);
    const cpu = process.cpuUsage(c);
    return { ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000 };
  }

  const runs: Record<string, { ms: number; cpuMs: number }[]> = { 'new-user': [], 'long-history': [] };
  for (let i = 0; i < LOGINS; i++) for (const user of Object.keys(runs)) runs[user]!.push(await login(user));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`a password login through the login UI, PostgreSQL, the long history: ${EVENTS} events`);
  for (const [user, r] of Object.entries(runs)) {
    const rest = r.slice(1);
    console.log(
      `${user.padEnd(13)} first ${r[0]!.ms.toFixed(1)} ms (CPU ${r[0]!.cpuMs.toFixed(1)} ms); next ${rest.length}: median ${median(rest.map((x) => x.ms)).toFixed(1)} ms (CPU ${median(rest.map((x) => x.cpuMs)).toFixed(1)} ms)`,
    );
  }
} finally {
  await kh.close();
  await pg.end();
  await admin.unsafe(`drop database ${name} with (force)`);
  await admin.end();
}
