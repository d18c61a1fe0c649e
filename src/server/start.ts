// Starts a Keyhold: open the database (PGlite or PostgreSQL), migrate,
// bootstrap, build the HTTP stack and listen. Returns a handle that stops it
// gracefully. Used by main.ts, by tests and by the benchmark.
import { KEYHOLD_VERSION } from './version.js';
import pino, { type Logger } from 'pino';
import { createServices } from '../api/services.js';
import { createCommands } from '../commands/index.js';
import type { Ports, TotpPorts, WebAuthnSettings } from '../commands/ports.js';
import { verifyRegistration } from '../domain/webauthn/index.js';
import type { StoredEvent } from '../domain/events/index.js';
import { cachedAccountReads } from '../queries/account-cache.js';
import { cachedClientLookups } from '../queries/client-cache.js';
import { tokenResolver, withOidcAccessTokens } from '../queries/callers.js';
import { createQueries } from '../queries/index.js';
import type { ReadModel } from '../queries/read-model.js';
import { openDatabase, type Database } from '../store/database.js';
import { createEventStore } from '../store/event-store.js';
import { createReadModel, expiredRegistrationSweeper } from '../store/read-model.js';
import { verificationThreads } from './verification-threads.js';
import { buildApp, type KeyholdApp } from './http/app.js';
import { bootstrap, ensureConsoleApp, ensureHumanAdmin, type BootstrapResult, type HumanAdminResult } from './bootstrap.js';
import type { Config } from './config.js';
import { startHousekeeping, type Housekeeping } from './housekeeping.js';
import { collectWhenIdle, fullCollection, type IdleCollection } from './idle-collection.js';
import { loggerOptions } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { cryptoSecrets, randomIds, systemClock } from './ports.js';
import { repeatedErrorLog } from './repeated-errors.js';
import { reportingFailures } from '../store/observer.js';
import { createOidcKeyStore, createOidcStateStore, DPOP_PROOF_MODEL, sealedKeysExist } from '../store/oidc-store.js';
import { createAttemptBudgets } from '../store/attempt-budgets.js';
import { DATABASE_WAIT_BOUNDS, within } from '../store/wait-bounds.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { attemptBudgetKey, idempotencyKeys, idpSealing, idpSecretKey, loadMasterKey, masterKeyCheck, totpSealing, totpSecretKey } from './oidc/keys.js';
import { createIdpSecrets } from '../store/idp-secrets.js';
import type { IdpSecretStore } from '../commands/ports.js';
import { externalLoginPorts } from './idp/login-ports.js';
import { cachedLoginSettings } from '../queries/login-settings-cache.js';
import { upstreamClient } from './idp/upstream.js';
import { createTotpSecrets } from '../store/totp-secrets.js';
import { openControlSocket, type ControlSocket } from './control-socket.js';
import { createIdempotentAnswers } from '../store/idempotent-answers.js';
import { withIdempotency } from './rpc/idempotency.js';
import { loginPorts } from '../login/adapters.js';
import { accountPorts } from '../account/adapters.js';
import { invitePagePorts } from '../login/invite-ports.js';
import { loginAccess, mayUseProject, rolesClaim } from '../queries/login-access.js';
import { mayStillWriteCredential } from '../access/access.js';
import { readyKeysByRpId } from '../store/queries/u2f-tokens.js';
import { relyingPartyWarnings } from '../login/relying-parties.js';
import { NO_MAIL, smtpMailer } from '../mail/smtp.js';
import { createEmailCodes } from '../store/email-codes.js';
import { passwordResetPorts } from '../login/password-reset.js';
import { addressCodePorts } from '../login/address-code.js';
import type { Mailer } from '../mail/mailer.js';
import { CONSOLE_CLIENT_ID, consoleRedirectUri } from '../commands/instance/add-console-app.js';

export interface RunningKeyhold {
  /** Where the port listens (KEYHOLD_HOST and the port). */
  url: string;
  /** The issuer every advertised URL is made from: KEYHOLD_ISSUER, else `http(s)://localhost:<port>`. */
  issuer: string;
  /** The console's URL: the console app's redirect URI, the only place its sign-in works. */
  consoleUrl: string;
  port: number;
  config: Config;
  database: Database;
  /** The read model the queries use (tests read through it too). */
  readModel: ReadModel;
  /** The commands the API calls (server-rendered pages, such as the account page, call them too). */
  commands: ReturnType<typeof createCommands>;
  /** The WebAuthn settings the commands use: the configured ones, the default origin naming the port listened on. */
  webauthn: WebAuthnSettings;
  app: KeyholdApp;
  bootstrap: BootstrapResult;
  /** Whether this start made the human admin (and wrote its password file). */
  humanAdmin: HumanAdminResult;
  log: Logger;
  housekeeping: Housekeeping;
  /** Keyhold's instruments (GET /metrics renders them). */
  metrics: Metrics;
  /** KEYHOLD_SMTP_*'s transport, or NO_MAIL (configured false) without it. */
  mailer: Mailer;
  stop(): Promise<void>;
}

/** The idle collection, or none when V8 would not hand over its collection function (said once, as a warning). */
function startIdleCollection(seconds: number, app: KeyholdApp, log: Logger): IdleCollection | undefined {
  let collect: () => void;
  try {
    collect = fullCollection();
  } catch (e) {
    log.warn({ err: e }, 'the heap will not be collected when idle: V8 did not hand over its collection function');
    return undefined;
  }
  return collectWhenIdle({
    quietMs: seconds * 1000,
    requestsServed: app.requestsServed,
    collect,
    collected: ({ beforeBytes, afterBytes, ms }) =>
      log.debug({ heapMiB: Math.round(beforeBytes / 2 ** 20), heapAfterMiB: Math.round(afterBytes / 2 ** 20), ms: Math.round(ms) }, 'idle: heap collected'),
    failed: (e) => log.warn({ err: e }, 'the idle heap collection failed; tried again after the next burst'),
  });
}

/**
 * The WebAuthn settings, made once the port is known: without configured
 * origins the default one names it (KEYHOLD_PORT=0 picks it when listening).
 */
export function webauthnSettings(config: Config, port: number): WebAuthnSettings {
  const { rpIds, rpName, attestation, timeoutMs, maxPendingPerUser, originsDefaulted } = config.webauthn;
  const origins = originsDefaulted ? [`${config.tls ? 'https' : 'http'}://localhost:${port}`] : config.webauthn.origins;
  return Object.freeze({ rpIds: Object.freeze([...rpIds]), rpName, origins: Object.freeze([...origins]), attestation, timeoutMs, maxPendingPerUser });
}

/** Names stored before Keyhold keyed them were keyed at this open: say so, and name every collision by its ids. */
function logRekey({ rekey }: Database, log: Logger): void {
  if (rekey.rekeyed > 0) log.info({ rows: rekey.rekeyed }, 'keyed the names stored before name keys existed (migrations 0001 and 0003)');
  for (const c of rekey.collisions) {
    log.warn(
      { table: c.table, scopeId: c.scopeId, keptId: c.keptId, rekeyedId: c.rekeyedId },
      'two stored names are one name under the new comparison: the older keeps it, the newer keeps its row but no longer owns the name',
    );
  }
}

/**
 * The console signs in with its own origin's `/console/` as redirect URI, and
 * its app was registered with the issuer of the start that made it: after
 * KEYHOLD_ISSUER changed, the console at the new issuer is refused
 * (invalid_redirect_uri) until its app has the new URI. Said at start.
 */
export async function warnOfStaleConsoleApp(read: Pick<ReadModel, 'appByClientId'>, issuer: string, consoleUrl: string, log: Logger): Promise<void> {
  const app = await read.appByClientId(CONSOLE_CLIENT_ID);
  const registered = app?.config?.redirectUris ?? [];
  if (!app || registered.includes(consoleUrl)) return;
  log.warn(
    { issuer, consoleUrl, registered, clientId: CONSOLE_CLIENT_ID },
    `the console at ${consoleUrl} cannot sign in: its app (client id ${CONSOLE_CLIENT_ID}) is registered for ${registered.join(', ') || 'no redirect URI'}, not for KEYHOLD_ISSUER's ${consoleUrl}; add ${consoleUrl} to the app's redirect and post-logout URIs, or start with the earlier KEYHOLD_ISSUER`,
  );
}

export async function startKeyhold(config: Config, log: Logger = pino(loggerOptions(config))): Promise<RunningKeyhold> {
  // Keyhold's own registry (metrics.ts); the store reports to it through its observer port.
  const metrics = createMetrics();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteSharedBuffers: config.pgliteSharedBuffers,
    poolSize: config.databasePoolSize,
    observer: metrics.store,
    keyholdVersion: KEYHOLD_VERSION,
    onMigrated: (run) => log.info({ migration: run.number, name: run.name, ms: run.ms }, `migration ${run.number} ${run.name} applied in ${run.ms} ms`),
  });
  logRekey(database, log);
  metrics.watchStatements(database.counted);
  const threads = config.webauthn.verifyThreads > 0 ? verificationThreads(config.webauthn.verifyThreads) : undefined;
  if (threads) metrics.watchVerificationQueue(() => threads.queueDepth());
  try {
    const events = createEventStore(database, metrics.store);
    const readModel = createReadModel(database, metrics.store);
    const boot = await bootstrap(readModel, events, config.adminPatFile, log);
    const humanAdmin = await ensureHumanAdmin(readModel, events, config.adminPatFile, log);
    // Set once, when the port is known (below); requests arrive only after that.
    let webauthn: WebAuthnSettings | undefined;
    let totp: TotpPorts | undefined;
    let idpSecrets: IdpSecretStore | undefined;
    // One-time codes sent by mail (store/email-codes.ts): the forgotten password's link.
    const emailCodes = reportingFailures(createEmailCodes(database), metrics.store);
    const ports: Ports = {
      events,
      emailCodes,
      lookups: readModel,
      clock: systemClock,
      ids: randomIds,
      secrets: cryptoSecrets,
      verifyRegistration: threads?.verify ?? verifyRegistration,
      webauthn: () => {
        if (!webauthn) throw new Error('WebAuthn settings are made when the server listens');
        return webauthn;
      },
      totp: () => {
        if (!totp) throw new Error('the TOTP ports are made when the server listens');
        return totp;
      },
      invite: () => ({ budgets: attempts }),
      idpSecrets: () => {
        if (!idpSecrets) throw new Error('the identity providers\' secrets are opened once the master key is loaded');
        return idpSecrets;
      },
    };
    const errors = repeatedErrorLog(log);
    const commands = createCommands(ports);
    // Before listening: a missing or unreadable master key stops the start here.
    const oidcState = createOidcStateStore(database);
    const masterKey = await loadMasterKey({ ...config.oidc, embedded: database.kind === 'pglite', sealedKeysExist: () => sealedKeysExist(database) });
    // Every guess at the login is reserved here before it is checked (passwords, recovery codes, user codes).
    const attempts = reportingFailures(createAttemptBudgets(database, attemptBudgetKey(masterKey)), metrics.store);
    idpSecrets = reportingFailures(createIdpSecrets(database, idpSealing(idpSecretKey(masterKey))), metrics.store);
    // Answers of creates sent with an Idempotency-Key, sealed, for repeats (interceptors/idempotency.ts).
    const idempotentAnswers = reportingFailures(createIdempotentAnswers(database), metrics.store);
    const onAppended = (listener: (events: readonly StoredEvent[]) => void) => events.onAppended?.(listener);
    const accounts = cachedAccountReads(readModel, { onAppended });
    const clients = cachedClientLookups(readModel, { onAppended });
    // The reads with the cached client lookups, made once: spread per call (mayUseClient), it showed as
    // 2–3% of the profile's samples at introspection and userinfo.
    const projectAccessReads = { ...readModel, ...clients };
    const loginSettings = cachedLoginSettings(readModel, { onAppended });
    // Known once the port is (below); no request arrives before.
    let issuer = '';
    // KEYHOLD_SMTP_*: the one mail transport (pooled); without it every flow that mails says so.
    const smtp = config.smtp ? smtpMailer(config.smtp) : undefined;
    const mailer: Mailer = smtp ?? NO_MAIL;
    const withPasswordReset = (base: ReturnType<typeof loginPorts>) => ({
      ...base,
      ...passwordResetPorts({
        codes: emailCodes,
        mailer,
        issuer: () => issuer,
        read: { user: accounts.user },
        commands,
        findLoginUser: base.findLoginUser,
        // After the answer: logged without the code or the link (MailUnavailable carries codes of the server only).
        failed: (err) => log.warn({ reason: err instanceof Error ? err.message : 'unknown' }, 'a password reset link was not sent'),
        makerMayStill: (makerId, userId) => mayStillWriteCredential(readModel, makerId, userId),
      }),
      ...addressCodePorts({
        mailer,
        issuer: () => issuer,
        read: { user: accounts.user },
        commands,
        failed: (err) => log.warn({ reason: err instanceof Error ? err.message : 'unknown' }, 'an address verification code was not mailed'),
      }),
    });
    // Set once every surface serves: the OpenID Provider and the console app start after the listener.
    let serving = false;
    const login = withPasswordReset(
      loginPorts(
        { ...readModel, ...loginSettings, user: accounts.user },
        commands,
        (userId, projectId) => loginAccess(readModel, userId, projectId).then((a) => a.allowed),
        attempts,
        { webauthn: ports.webauthn, forceMfa: accounts.forceMfaOf },
        metrics.identity,
        externalLoginPorts({
          read: { ...readModel, ...loginSettings },
          commands,
          secrets: ports.idpSecrets!,
          upstream: upstreamClient({ egress: { allowPrivateNetworks: config.idpPrivateNetworks } }),
          mfaRequired: async (userId) => {
            const user = await readModel.userFacts(userId);
            return user ? accounts.forceMfaOf(user.orgId) : true;
          },
          log,
        }),
      ),
    );
    const app = await buildApp({
      config,
      log,
      services: createServices({ commands, queries: createQueries(readModel, systemClock), mail: { mailer, issuer: () => issuer } }).map(withIdempotency(idempotentAnswers, idempotencyKeys(masterKey))),
      // Users, apps and machines through the same 1 s caches as the provider's (queries/callers.ts).
      resolveToken: withOidcAccessTokens(tokenResolver(readModel, { onAppended }), {
        findAccessToken: (token) => oidcState.find('AccessToken', token),
        grantExists: async (grantId) => (await oidcState.find('Grant', grantId)) !== undefined,
        read: { ...projectAccessReads, user: accounts.user },
        // Machine users' client-credentials tokens (opaque, or JWT checked by the OpenID Provider's keys).
        findClientCredentials: (token) => oidcState.find('ClientCredentials', token),
        machineJwt: (token) => app.oidc?.machineJwt(token),
        claimProof: (key, expiresIn) => oidcState.insertNew(DPOP_PROOF_MODEL, key, {}, expiresIn),
        sessionsEndedAt: (userId) => oidcState.sessionsEndedAt(userId),
      }),
      issuer: () => issuer,
      // Every surface serves (the OpenID Provider starts after the listener), the database answers
      // within the readiness bound, and its storage takes writes (a full disk still answers `select 1`).
      ready: async () => {
        if (!serving) throw new KeyholdError('SERVER_STARTING');
        await within(
          (async () => {
            await database.storage.check();
            await database.ping();
          })(),
          DATABASE_WAIT_BOUNDS.readyMs,
          'answer to the readiness probe',
          () => {},
        );
      },
      errors,
      metrics,
      oidc: {
        store: oidcState,
        keyStore: createOidcKeyStore(database),
        keyRotation: config.oidc.keyRotation,
        lifetimes: config.oidc.lifetimes,
        audit: commands.recordOidc,
        // The provider's client and account reads, cached (queries/client-cache.ts, queries/account-cache.ts); everything else read as is.
        read: { ...projectAccessReads, user: accounts.user, userMetadataOf: accounts.userMetadataOf },
        rolesOf: async (userId, projectId) => rolesClaim(await readModel.projectRolesOfUser(userId, projectId)),
        // The project's facts come with the cached client lookup (queries/client-cache.ts).
        mayUseClient: (userId, clientId) => mayUseProject(projectAccessReads, userId, clientId),
        login,
        invite: invitePagePorts(commands, readModel, login),
        account: accountPorts({ ...readModel, user: accounts.user }, commands, accounts.forceMfaOf, { mailer, issuer: () => issuer }),
        attempts,
        identity: metrics.identity,
      },
    });
    await app.fastify.listen({ port: config.port, host: config.host });
    const address = app.listener.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    webauthn = webauthnSettings(config, port);
    issuer = config.oidc.issuer ?? `${config.tls ? 'https' : 'http'}://localhost:${port}`;
    // The authenticator app's label names this instance by its issuer's host (config, never a request header).
    totp = Object.freeze({
      issuer: new URL(issuer).host,
      secrets: reportingFailures(createTotpSecrets(database, totpSealing(totpSecretKey(masterKey))), metrics.store),
    });
    await app.oidc?.start(issuer, masterKey);
    // Security keys the login cannot take, said once at start (src/login/relying-parties.ts): counts and RP ids only.
    for (const w of relyingPartyWarnings(issuer, webauthn, await readyKeysByRpId(database.sql))) log.warn(w.fields, w.message);
    await ensureConsoleApp(readModel, events, issuer, log);
    const consoleUrl = consoleRedirectUri(issuer);
    await warnOfStaleConsoleApp(readModel, issuer, consoleUrl, log);
    const housekeeping = startHousekeeping({
      ...expiredRegistrationSweeper(database, metrics.store),
      expiredKeptMs: config.webauthn.expiredKeptMs,
      windowed: [
        { table: 'oidc_payloads', deleteExpired: (limit) => oidcState.deleteExpired(new Date(), limit), countExpired: (limit) => oidcState.countExpired(new Date(), limit) },
        { table: 'attempt_budgets', deleteExpired: (limit) => attempts.deleteExpired(limit), countExpired: (limit) => attempts.countExpired(limit) },
        { table: 'idempotent_answers', deleteExpired: (limit) => idempotentAnswers.deleteExpired(limit), countExpired: (limit) => idempotentAnswers.countExpired(limit) },
        { table: 'email_codes', deleteExpired: (limit) => emailCodes.deleteExpired(limit), countExpired: (limit) => emailCodes.countExpired(limit) },
      ],
      log,
      errors,
      observer: metrics.sweep,
      reclaim: database.reclaim?.bind(database),
    });
    // `keyhold backup`'s way to a consistent copy of the embedded database (control-socket.ts).
    const control: ControlSocket | undefined = database.snapshot
      ? await openControlSocket({ dataDir: config.dataDir, snapshot: (target) => database.snapshot!(target), masterKeyCheck: masterKeyCheck(masterKey), log })
      : undefined;
    // The heap a burst grew, given back once the requests stop (idle-collection.ts).
    const idle = config.idleCollectSeconds > 0 ? startIdleCollection(config.idleCollectSeconds, app, log) : undefined;
    serving = true;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `${config.tls ? 'https' : 'http'}://${host}:${port}`;
    let stopping: Promise<void> | undefined;
    return {
      url,
      issuer,
      consoleUrl,
      port,
      config,
      database,
      readModel,
      commands,
      webauthn,
      app,
      bootstrap: boot,
      humanAdmin,
      log,
      housekeeping,
      metrics,
      mailer,
      stop: () =>
        (stopping ??= (async () => {
          idle?.stop();
          // No backup starts once stopping; one under way ends with the database (its reader sees it break).
          await control?.close();
          // Stop accepting, let in-flight requests finish (bounded), then close the rest.
          const closing = app.fastify.close();
          app.listener.closeConnections();
          const grace = setTimeout(() => app.listener.closeConnections(true), 3_000);
          await closing;
          clearTimeout(grace);
          await housekeeping.stop();
          await app.oidc?.stop();
          errors.flush();
          smtp?.close();
          await Promise.all([database.close(), threads?.close()]);
        })()),
    };
  } catch (e) {
    await Promise.all([database.close(), threads?.close()]);
    throw e;
  }
}
