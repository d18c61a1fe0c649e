// Starts a Keyhold: open the database (PGlite or PostgreSQL), migrate,
// bootstrap, build the HTTP stack and listen. Returns a handle that stops it
// gracefully. Used by main.ts, by tests and by the benchmark.
import pino, { type Logger } from 'pino';
import { tokenResolver } from '../api/auth/resolve-token.js';
import type { Deps } from '../api/context.js';
import { createServices } from '../api/services.js';
import { openDatabase, type Database } from '../store/database.js';
import { createEventStore } from '../store/event-store.js';
import { verifyRegistration } from '../domain/webauthn/index.js';
import { verificationThreads } from './verification-threads.js';
import { buildApp, type KeyholdApp } from './app.js';
import { bootstrap, type BootstrapResult } from './bootstrap.js';
import type { Config } from './config.js';
import { loggerOptions } from './logger.js';

export interface RunningKeyhold {
  url: string;
  port: number;
  config: Config;
  database: Database;
  app: KeyholdApp;
  bootstrap: BootstrapResult;
  log: Logger;
  stop(): Promise<void>;
}

export async function startKeyhold(config: Config, log: Logger = pino(loggerOptions(config))): Promise<RunningKeyhold> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const threads = config.webauthn.verifyThreads > 0 ? verificationThreads(config.webauthn.verifyThreads) : undefined;
  try {
    const store = createEventStore(database);
    const boot = await bootstrap(database, store, config.adminPatFile, log);
    const deps: Deps = { config, database, store, log, verifyRegistration: threads?.verify ?? verifyRegistration };
    const app = await buildApp({
      config,
      log,
      services: createServices(deps),
      resolveToken: tokenResolver(deps),
      ready: () => database.ping(),
    });
    await app.fastify.listen({ port: config.port, host: config.host });
    const address = app.listener.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `${config.tls ? 'https' : 'http'}://${host}:${port}`;
    // With KEYHOLD_PORT=0 the default WebAuthn origin can only be known now.
    if (config.webauthn.originsDefaulted) config.webauthn.origins = [`${config.tls ? 'https' : 'http'}://localhost:${port}`];
    let stopping: Promise<void> | undefined;
    return {
      url,
      port,
      config,
      database,
      app,
      bootstrap: boot,
      log,
      stop: () =>
        (stopping ??= (async () => {
          // Stop accepting, let in-flight requests finish (bounded), then close the rest.
          const closing = app.fastify.close();
          app.listener.closeConnections();
          const grace = setTimeout(() => app.listener.closeConnections(true), 3_000);
          await closing;
          clearTimeout(grace);
          await Promise.all([database.close(), threads?.close()]);
        })()),
    };
  } catch (e) {
    await Promise.all([database.close(), threads?.close()]);
    throw e;
  }
}
