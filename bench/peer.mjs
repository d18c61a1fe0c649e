// The peer: a bare oidc-provider 9.13.3 with its in-memory adapter
// (the library's MemoryAdapter, no storage at all; only its size cap lifted) in its own process — the
// library's ceiling on this machine for the same token requests Keyhold
// answers. Forked by bench/run.ts with IPC; argv[2] = JSON { port, chains }.
// It answers the parent with { port, target }: the clients' credentials and
// `chains` refresh chains (grant + access token + refresh token per virtual
// user) made inside the process, so no login UI is needed here.
//
// Configured like Keyhold where it matters for the comparison: Keyhold's paths,
// RS256 signatures, rotateRefreshToken, resource indicators (a machine's tokens
// for one API resource, opaque or JWT), introspection, userinfo, client secrets
// by client_secret_basic. Plain JavaScript: no loader between it and Node.
//
// Its login (the bench's `login` scenario): the least a login UI over this
// library must do, as pages of the same shape as Keyhold's so the same
// load generator drives both — username form → password form (argon2id verify
// with Keyhold's parameters, passed in as `argon2`, against a hash made at
// start) → interactionFinished → the grant made without a consent
// interaction (loadExistingGrant, as Keyhold's) → code → code exchange with PKCE. No form token checks, no audit, no lockout,
// no policies: what is left beside the hash is the library's own per-request
// work, which the login target (80 % of the argon2id floor) must fit in too.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import Provider from 'oidc-provider';
// The library's own in-memory adapter and its LRU, but not capped at 1,000 entries (its default): a
// run issues hundreds of thousands of tokens, and the cap evicted the prepared grants and chains.
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

const { port, chains, argon2, password } = JSON.parse(process.argv[2] ?? '{}');
const issuer = `http://localhost:${port}`;
const secret = () => randomBytes(32).toString('base64url');
const RESOURCE = 'urn:bench:api';
const REDIRECT_URI = 'https://app.example.com/auth/callback';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

const clients = {
  ccBearer: { clientId: 'peer-cc-bearer', clientSecret: secret() },
  ccJwt: { clientId: 'peer-cc-jwt', clientSecret: secret() },
  app: { clientId: 'peer-app', clientSecret: secret() },
};
const machine = (c) => ({ client_id: c.clientId, client_secret: c.clientSecret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [] });

const store = new LRU({ maxSize: 50_000_000 });

const provider = new Provider(issuer, {
  adapter: (model) => new MemoryAdapter(model, store),
  clients: [
    machine(clients.ccBearer),
    machine(clients.ccJwt),
    {
      client_id: clients.app.clientId,
      client_secret: clients.app.clientSecret,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [REDIRECT_URI],
    },
  ],
  interactions: { url: (_ctx, interaction) => `/ui/login/${interaction.uid}` },
  // First-party: the grant of what was asked, without a consent interaction (as Keyhold's first-party-grant.ts).
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    if (ctx.oidc.prompts.has('consent') || !['authorization', 'resume'].includes(ctx.oidc.route) || !ctx.oidc.result?.login) return undefined;
    const grant = new ctx.oidc.provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
    grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '));
    await grant.save();
    return grant;
  },
  jwks: { keys: [{ ...rsa, kid: 'rs', use: 'sig', alg: 'RS256' }, { ...ec, kid: 'es', use: 'sig', alg: 'ES256' }] },
  cookies: { keys: [secret()] },
  routes: {
    authorization: '/oauth/v2/authorize',
    token: '/oauth/v2/token',
    introspection: '/oauth/v2/introspect',
    revocation: '/oauth/v2/revoke',
    jwks: '/oauth/v2/keys',
    userinfo: '/oidc/v1/userinfo',
    end_session: '/oidc/v1/end_session',
  },
  scopes: ['openid', 'offline_access', 'profile', 'email'],
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  rotateRefreshToken: true,
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    userinfo: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, client) => (client.clientId.startsWith('peer-cc-') ? RESOURCE : undefined),
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, _resource, client) => ({
        scope: '',
        audience: RESOURCE,
        accessTokenTTL: 12 * 3600,
        accessTokenFormat: client.clientId === clients.ccJwt.clientId ? 'jwt' : 'opaque',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
  ttl: { AccessToken: 12 * 3600, ClientCredentials: 12 * 3600, RefreshToken: 30 * 24 * 3600, Grant: 90 * 24 * 3600, IdToken: 12 * 3600 },
});
provider.on('server_error', (_ctx, e) => console.error('[peer] server_error', e));

/** A refresh chain as a code exchange would leave it: a grant, an access token and a refresh token. */
async function chain(i) {
  const client = await provider.Client.find(clients.app.clientId);
  const accountId = `peer-user-${i}`;
  const grant = new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope('openid profile offline_access');
  const grantId = await grant.save();
  const common = { client, accountId, grantId, gty: 'authorization_code' };
  const accessToken = await new provider.AccessToken({ ...common, scope: 'openid profile' }).save();
  const refreshToken = await new provider.RefreshToken({ ...common, scope: 'openid profile offline_access', authTime: Math.floor(Date.now() / 1000) }).save();
  return { accessToken, refreshToken };
}

// Every login user's password hash (one per process: the same work per verify as one per user).
const storedHash = password ? await argon2Hash(password, argon2) : '';

const form = (uid, step, fields) =>
  `<!doctype html><title>Sign in</title><form method="post" action="/ui/login/${uid}/${step}"><input type="hidden" name="form_token" value="-">${fields}<button>Next</button></form>`;

function readForm(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(Object.fromEntries(new URLSearchParams(body))));
    req.on('error', reject);
  });
}

/** The login pages at /ui/login/<uid>[/<step>]. */
async function login(req, res, uid, step) {
  const page = (html) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  const again = () => res.writeHead(303, { location: `/ui/login/${uid}` }).end();
  const interaction = await provider.interactionDetails(req, res);
  if (interaction.uid !== uid) return res.writeHead(400).end();
  const pending = interaction.result?.pending;
  if (interaction.prompt.name === 'consent') {
    const grant = new provider.Grant({ accountId: interaction.session.accountId, clientId: interaction.params.client_id });
    const details = interaction.prompt.details;
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }
  if (!step) return page(pending ? form(uid, 'password', '<input name="password" type="password">') : form(uid, 'username', '<input name="username">'));
  const body = await readForm(req);
  if (step === 'username') {
    interaction.result = { pending: { loginName: body.username } };
    await interaction.persist();
    return again();
  }
  if (step === 'password' && pending && (await argon2Verify(storedHash, body.password ?? ''))) {
    return provider.interactionFinished(req, res, { login: { accountId: pending.loginName } }, { mergeWithLastSubmission: false });
  }
  return again();
}

const callback = provider.callback();
const server = http.createServer((req, res) => {
  const m = /^\/ui\/login\/([\w-]+)(?:\/(\w+))?$/.exec(req.url ?? '');
  if (!m) return callback(req, res);
  login(req, res, m[1], m[2]).catch((e) => {
    console.error('[peer] login', e);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
server.listen(port, '127.0.0.1', async () => {
  const made = [];
  for (let i = 0; i < chains; i++) made.push(await chain(i));
  const logins = password ? { loginUsers: Array.from({ length: 64 }, (_, i) => `peer-login-${i}`), password } : {};
  process.send({ port, target: { kind: 'peer', baseUrl: issuer, ...clients, chains: made, ...logins } });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
