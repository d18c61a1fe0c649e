// Keyhold as a process (`keyhold`, `npm start`): the configuration from the
// environment, a logger, the server on the configured port (embedded PGlite
// unless DATABASE_URL is set), and SIGTERM/SIGINT draining it. Loaded by
// src/main.ts only when the command line asks for a server.
import pino from 'pino';
import { adminTokenSummary } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { EXIT_INVALID_CONFIG, invalidConfigurationText } from './config-command.js';
import { startWarnings } from './config-report.js';
import { loggerOptions } from './logger.js';
import { shutdownOnSignals } from './shutdown.js';
import { startKeyhold } from './start.js';
import { boundHeapGrowth } from './heap-growth.js';

/** sysexits.h: a temporary failure, worth a restart. */
const EX_TEMPFAIL = 75;

export async function run(): Promise<void> {
  // Everything Keyhold writes (database files, the admin token, their
  // directories) is for its own user only. Files get explicit modes anyway
  // (store/private-data-dir.ts, server/bootstrap.ts); this also covers the
  // directories made on the way and any file a dependency creates.
  process.umask(0o077);
  boundHeapGrowth();
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(invalidConfigurationText(e));
      process.exit(EXIT_INVALID_CONFIG);
    }
    throw e;
  }
  const log = pino(loggerOptions(config));
  // Names of variables and settings only: a secret's value is never part of a warning.
  for (const w of startWarnings(process.env, config)) log.warn(w.fields, w.message);
  // Signals are caught from here on: a SIGTERM while Keyhold starts (it may already answer
  // /healthz) waits for the start to finish and then drains, instead of killing the process
  // in the middle of a migration or bootstrap; its deadline runs from the signal (shutdown.ts).
  const shutdown = shutdownOnSignals({ log, timeoutMs: config.shutdownTimeoutSeconds * 1000, exit: (code) => process.exit(code) });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutdown.signal(signal));
  const keyhold = await startKeyhold(config, log).catch((e: Error) => {
    log.fatal({ err: e }, 'keyhold could not start');
    process.stderr.write(`keyhold: could not start: ${e.message}\n`);
    process.exit(1);
  });
  const admin = adminTokenSummary(keyhold.bootstrap, config.adminPatFile);
  log.info(
    { url: keyhold.url, console: keyhold.consoleUrl, database: keyhold.database.kind, ...admin.fields },
    `Keyhold listening on ${keyhold.url} (${keyhold.database.kind}); console at ${keyhold.consoleUrl}; ${admin.text}`,
  );
  shutdown.started(() => keyhold.stop());
  // The embedded database stopped after a storage failure (PGlite after a
  // PANIC, store/pglite-guard.ts): this process cannot use it again. Requests
  // meanwhile get 503; exit with EX_TEMPFAIL so that a supervisor restarts
  // Keyhold, whose start replays the database's log once there is space.
  void keyhold.database.failed.then((err) => {
    log.fatal({ err }, 'the embedded database stopped after a storage failure; exiting to be restarted (free space first)');
    process.stderr.write(`keyhold: ${err.message}\n`);
    shutdown.drain(EX_TEMPFAIL);
  });
}
