// `npm start`: Keyhold on the configured port, embedded PGlite unless DATABASE_URL is set.
import pino from 'pino';
import { ConfigError, loadConfig } from './server/config.js';
import { loggerOptions } from './server/logger.js';
import { startKeyhold } from './server/start.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`keyhold: invalid configuration: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const log = pino(loggerOptions(config));
  const keyhold = await startKeyhold(config, log).catch((e: Error) => {
    log.fatal({ err: e }, 'keyhold could not start');
    process.stderr.write(`keyhold: could not start: ${e.message}\n`);
    process.exit(1);
  });
  log.info(
    { url: keyhold.url, database: keyhold.database.kind, adminPatFile: config.adminPatFile },
    `Keyhold listening on ${keyhold.url} (${keyhold.database.kind}); admin token in ${config.adminPatFile}`,
  );
  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signalled) return;
      signalled = true;
      log.info({ signal }, 'draining and shutting down');
      keyhold.stop().then(
        () => process.exit(0),
        (e) => {
          log.error({ err: e }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

void main();
