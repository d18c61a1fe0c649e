// `keyhold config`: the settings on stdout, the warnings a start would log on
// stderr, exit 0; a configuration a start would refuse: the same message as
// that start (run.ts) and the same exit code.
import { ConfigError, type Env } from './config.js';
import { configReport } from './config-report.js';

/** A start's exit code for a configuration it refuses (run.ts). */
export const EXIT_INVALID_CONFIG = 2;

/** The line a start prints for a refused configuration. */
export const invalidConfigurationText = (e: ConfigError) => `keyhold: invalid configuration: ${e.message}\n`;

export function printConfig(env: Env, out: { write(s: string): unknown }, err: { write(s: string): unknown }): number {
  let report;
  try {
    report = configReport(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    err.write(invalidConfigurationText(e));
    return EXIT_INVALID_CONFIG;
  }
  out.write(report.text);
  for (const w of report.warnings) err.write(`keyhold: warning: ${w.message}\n`);
  return 0;
}
