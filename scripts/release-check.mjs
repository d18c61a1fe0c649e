#!/usr/bin/env node
// The release check: the tarball `npm pack` makes must install and run on a
// machine with nothing but Node. It packs the checkout (npm's "prepare" builds
// the server and the console into the package), installs the tarball into an
// empty prefix without dev dependencies, as a user installs it, and starts
// `<prefix>/bin/keyhold` on an empty data directory and a free port: /healthz,
// discovery, the console and the login page must answer. Then it stops the
// server (SIGTERM, exit 0) and removes everything it made.
//
//   node scripts/release-check.mjs    (.ci/run runs it after the test legs)
//
// It takes about a minute: the install fetches the dependencies from the registry.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

/** What the package must hold to start, and what must never ship in it. */
export const REQUIRED_FILES = [
  'package.json',
  'LICENSE',
  'README.md',
  'bin/keyhold.js',
  'dist/server/keyhold.mjs',
  'dist/server/verify-worker.mjs',
  'dist/server/build-info.json',
  'dist/server/pgdata-template/PG_VERSION',
  'console/dist/index.html',
  'scripts/patch-postgres-js.mjs',
];
export const FORBIDDEN_PREFIXES = ['src/', 'test/', 'bench/', 'gen/', 'proto/', 'node_modules/', '.keyhold/', '.ci/', 'console/src/'];
/** Build and test tools: a user's install has none of them. */
const DEV_ONLY_PACKAGES = ['typescript', 'tsx', 'esbuild', 'vitest'];

/** What is wrong with a package holding these paths (npm pack's list): none when it may ship. */
export function packageProblems(paths) {
  const missing = REQUIRED_FILES.filter((f) => !paths.includes(f)).map((f) => `the package lacks ${f}`);
  const forbidden = paths.filter((p) => FORBIDDEN_PREFIXES.some((prefix) => p.startsWith(prefix)));
  return [...missing, ...(forbidden.length ? [`the package holds files it must not: ${forbidden.slice(0, 5).join(', ')}`] : [])];
}

const started = Date.now();
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);
const step = (text) => console.log(`release check: ${text}`);
/** Resolves undefined after `ms`, without keeping the process alive. */
const after = (ms) => new Promise((r) => setTimeout(r, ms).unref());
const fail = (text) => {
  throw new Error(text);
};

/** npm without the npm_* variables of a surrounding `npm run`, which would redirect its prefix or cache. */
const npmEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
function npm(args, cwd) {
  return execFileSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function get(url, init = {}) {
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(15_000), ...init });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

async function check(work) {
  // 1. Pack: "prepare" builds dist/server and console/dist first.
  let t = Date.now();
  const packDir = path.join(work, 'pack');
  mkdirSync(packDir);
  const packOut = npm(['pack', '--json', '--pack-destination', packDir], repoRoot);
  // The build's own lines come first; npm's JSON answer is the last thing it prints.
  const [packed] = JSON.parse(packOut.slice(packOut.lastIndexOf('\n[') + 1));
  const tarball = path.join(packDir, packed.filename);
  const problems = packageProblems(packed.files.map((f) => f.path));
  if (problems.length) fail(problems.join('; '));
  const mb = (n) => (n / 1024 / 1024).toFixed(1);
  step(`packed ${packed.filename}: ${mb(packed.size)} MB (${mb(packed.unpackedSize)} MB unpacked, ${packed.entryCount} files) in ${seconds(t)} s`);

  // 2. Install as a user does, into an empty prefix, from an empty directory.
  t = Date.now();
  const prefix = path.join(work, 'prefix');
  const runDir = path.join(work, 'run');
  mkdirSync(runDir);
  const install = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--omit=dev', '--no-audit', '--no-fund', tarball], { cwd: runDir, env: npmEnv(), encoding: 'utf8' });
  if (install.status !== 0) fail(`npm install of the tarball failed:\n${install.stdout}${install.stderr}`);
  // Packages whose engines exclude this Node: expected on Node 20 (docs/deployment.md, Node), shown for the record.
  const badEngines = [...new Set([...install.stderr.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((m) => m[1]))];
  const installed = path.join(prefix, 'lib/node_modules', pkg.name);
  const bin = path.join(prefix, 'bin/keyhold');
  if (!existsSync(bin)) fail(`no ${bin} after the install`);
  const devTools = DEV_ONLY_PACKAGES.filter((p) => existsSync(path.join(installed, 'node_modules', p)));
  if (devTools.length) fail(`the install holds development tools: ${devTools.join(', ')}`);
  const postgresIndex = path.join(installed, 'node_modules/postgres/src/index.js');
  if (!readFileSync(postgresIndex, 'utf8').startsWith('/* keyhold: patched')) fail('the postinstall script did not repair postgres.js');
  step(`installed into ${prefix} in ${seconds(t)} s${badEngines.length ? `; npm's EBADENGINE warnings on Node ${process.versions.node}: ${badEngines.join(', ')}` : ''}`);

  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' });
  if (!version.startsWith(`${pkg.version} (commit `)) fail(`keyhold --version printed ${JSON.stringify(version)}`);
  step(`keyhold --version: ${version.trim()}`);

  // 3. Start on an empty data directory and a free port; only the variables set here configure it.
  t = Date.now();
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const env = { PATH: process.env.PATH, HOME: work, KEYHOLD_PORT: String(port), KEYHOLD_DATA_DIR: path.join(work, 'data') };
  const server = spawn(bin, [], { cwd: runDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.on('data', (d) => (output += d));
  server.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    for (;;) {
      const res = await get(`${base}/healthz`).catch(() => undefined);
      if (res?.status === 200) break;
      const gone = await Promise.race([exited, after(250)]);
      if (gone) fail(`keyhold exited (${gone.code ?? gone.signal}) before answering /healthz`);
      if (Date.now() - t > 120_000) fail('keyhold did not answer /healthz within 120 s');
    }
    step(`first start answered /healthz in ${seconds(t)} s`);

    const discovery = await get(`${base}/.well-known/openid-configuration`);
    if (discovery.status !== 200) fail(`discovery answered ${discovery.status}`);
    const { issuer, authorization_endpoint: authorize } = JSON.parse(discovery.body);
    if (issuer !== base) fail(`discovery names the issuer ${issuer}, not ${base}`);

    const consolePage = await get(`${base}/console/`);
    const script = /<script[^>]+src="([^"]+)"/.exec(consolePage.body)?.[1];
    if (consolePage.status !== 200 || !script) fail(`the console page answered ${consolePage.status} without its script`);
    const consoleScript = await get(new URL(script, `${base}/console/`));
    if (consoleScript.status !== 200 || !consoleScript.headers.get('content-type')?.includes('javascript')) fail(`the console's script answered ${consoleScript.status}`);

    // The console's own sign-in, as a browser starts it: the authorization request leads to the login page.
    const auth = await get(`${authorize}?${new URLSearchParams({
      client_id: 'keyhold-console',
      redirect_uri: `${base}/console/`,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })}`);
    if (auth.status !== 303) fail(`the authorization request answered ${auth.status}, not a redirect to the login page`);
    let cookie = '';
    let page = auth;
    let url = new URL(authorize);
    for (let hops = 0; page.status === 303 && hops < 5; hops++) {
      cookie = [cookie, ...page.headers.getSetCookie().map((c) => c.split(';')[0])].filter(Boolean).join('; ');
      url = new URL(page.headers.get('location'), url);
      page = await get(url, { headers: { cookie } });
    }
    if (page.status !== 200 || !/<form[^>]+action="[^"]*\/username"/.test(page.body)) fail(`the login page (${url.pathname}) answered ${page.status} without its username form`);
    step(`discovery, the console (${script}) and the login page answered 200`);

    server.kill('SIGTERM');
    const end = await Promise.race([exited, after(30_000)]);
    if (!end) fail('keyhold did not stop within 30 s of SIGTERM');
    if (end.code !== 0) fail(`keyhold stopped with ${end.code ?? end.signal}`);
  } catch (e) {
    server.kill('SIGKILL');
    throw new Error(`${e.message}\n--- keyhold's output ---\n${output.slice(-8000)}`);
  }
  return { packed };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const work = mkdtempSync(path.join(os.tmpdir(), 'keyhold-release-'));
  let result;
  try {
    result = await check(work);
  } catch (e) {
    console.error(`release check FAILED: ${e.message}`);
    process.exitCode = 1;
  }
  rmSync(work, { recursive: true, force: true });
  if (result) {
    const { packed } = result;
    console.log(`release check passed: ${packed.filename}, ${(packed.size / 1024 / 1024).toFixed(1)} MB, in ${seconds(started)} s on Node ${process.versions.node}`);
  }
}
