// The `keyhold` command line. No argument starts the server, configured by the
// environment (config-variables.ts); `config` prints the configuration a start
// would use (config-report.ts); --help and --version answer and exit 0;
// anything else is refused with exit code 2 before anything starts (a typo
// such as `keyhold --prot 80` must not start a server on the default port).
import { configVariablesText } from './config-variables.js';
import { KEYHOLD_COMMIT, KEYHOLD_VERSION } from './version.js';

export type CliAction =
  | { kind: 'start' }
  /** Print the effective configuration (exit 0), or the error a start would print (exit 2). */
  | { kind: 'config' }
  /** Print `text` to stdout (exit 0) or stderr (exit 2), start nothing. */
  | { kind: 'exit'; code: 0 | 2; text: string };

export function helpText(): string {
  return [
    'Usage: keyhold [config | --help | --version]',
    '',
    'Starts Keyhold: gRPC, gRPC-Web, Connect and REST on one port, with an embedded',
    'database (PGlite) unless DATABASE_URL names PostgreSQL. SIGTERM drains and stops it.',
    '',
    'Commands and options:',
    '  config         print every setting, its value and where it came from (environment,',
    '                 file, default), secrets redacted, and exit; exit 2 if a start would refuse it',
    '  -h, --help     print this help and exit',
    '  -v, --version  print the version and the commit it was built from, and exit',
    '',
    'Environment:',
    configVariablesText(),
    '',
  ].join('\n');
}

export function cliAction(args: readonly string[]): CliAction {
  if (args.length === 0) return { kind: 'start' };
  const [first] = args;
  if (args.length === 1 && first === 'config') return { kind: 'config' };
  if (args.length === 1 && (first === '--help' || first === '-h')) return { kind: 'exit', code: 0, text: helpText() };
  if (args.length === 1 && (first === '--version' || first === '-v')) return { kind: 'exit', code: 0, text: `${KEYHOLD_VERSION} (commit ${KEYHOLD_COMMIT})\n` };
  const unknown = args.find((a) => !['config', '--help', '-h', '--version', '-v'].includes(a)) ?? args.join(' ');
  return { kind: 'exit', code: 2, text: `keyhold: unknown argument "${unknown.slice(0, 100)}"; keyhold takes config, --help or --version, and is configured by environment variables (keyhold --help lists them)\n` };
}
