// The `keyhold` command line. No argument starts the server, configured by the
// environment (config-variables.ts); `config` prints the configuration a start
// would use (config-report.ts); --help and --version answer and exit 0;
// `backup` and `restore` copy the embedded database (backup.ts); anything else
// is refused with exit code 2 before anything starts (a typo such as
// `keyhold --prot 80` must not start a server on the default port).
import { configVariablesText } from './config-variables.js';
import { KEYHOLD_COMMIT, KEYHOLD_VERSION } from './version.js';

export type CliAction =
  | { kind: 'start' }
  /** Print the effective configuration (exit 0), or the error a start would print (exit 2). */
  | { kind: 'config' }
  /** `keyhold backup <file> [--include-master-key]` (backup.ts). */
  | { kind: 'backup'; file: string; includeMasterKey: boolean }
  /** `keyhold restore <file> [--master-key-file <file>]` (backup.ts). */
  | { kind: 'restore'; file: string; masterKeyFile?: string }
  /** Print `text` to stdout (exit 0) or stderr (exit 2), start nothing. */
  | { kind: 'exit'; code: 0 | 2; text: string };

export function helpText(): string {
  return [
    'Usage: keyhold [config | --help | --version]',
    '       keyhold backup <file> [--include-master-key]',
    '       keyhold restore <file> [--master-key-file <file>]',
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
    'Backups of the embedded database (with DATABASE_URL: pg_dump, docs/backup.md):',
    '  backup <file>   writes a consistent copy of KEYHOLD_DATA_DIR\'s database to a new',
    '                  file, from the running Keyhold or from the stopped directory.',
    '                  The master key stays out: the command says where it is, keep it apart.',
    '    --include-master-key   put the master key in too (the file then opens every sealed secret)',
    '  restore <file>  restores a backup into an empty or new KEYHOLD_DATA_DIR.',
    '    --master-key-file <file>   the master key kept apart, written into the data directory',
    '',
    'Environment:',
    configVariablesText(),
    '',
  ].join('\n');
}

const usageError = (text: string): CliAction => ({ kind: 'exit', code: 2, text: `keyhold: ${text} (keyhold --help)\n` });

/** `backup`/`restore` followed by one file and the command's own options, in any order. */
function fileCommand(command: 'backup' | 'restore', rest: readonly string[]): CliAction {
  let file: string | undefined;
  let includeMasterKey = false;
  let masterKeyFile: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (command === 'backup' && arg === '--include-master-key') includeMasterKey = true;
    else if (command === 'restore' && (arg === '--master-key-file' || arg.startsWith('--master-key-file='))) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : rest[++i];
      if (!value) return usageError('--master-key-file needs the file holding the master key');
      masterKeyFile = value;
    } else if (arg.startsWith('-') && arg !== '-') return usageError(`keyhold ${command}: unknown option "${arg.slice(0, 100)}"`);
    else if (file !== undefined) return usageError(`keyhold ${command} takes one file, got "${file.slice(0, 100)}" and "${arg.slice(0, 100)}"`);
    else file = arg;
  }
  if (file === undefined || file === '-') return usageError(`keyhold ${command} needs the backup's file, e.g. keyhold ${command} keyhold.backup`);
  return command === 'backup' ? { kind: 'backup', file, includeMasterKey } : { kind: 'restore', file, masterKeyFile };
}

export function cliAction(args: readonly string[]): CliAction {
  if (args.length === 0) return { kind: 'start' };
  const [first] = args;
  if (args.length === 1 && first === 'config') return { kind: 'config' };
  if (first === 'backup' || first === 'restore') return fileCommand(first, args.slice(1));
  if (args.length === 1 && (first === '--help' || first === '-h')) return { kind: 'exit', code: 0, text: helpText() };
  if (args.length === 1 && (first === '--version' || first === '-v')) return { kind: 'exit', code: 0, text: `${KEYHOLD_VERSION} (commit ${KEYHOLD_COMMIT})\n` };
  const unknown = args.find((a) => !['config', '--help', '-h', '--version', '-v'].includes(a)) ?? args.join(' ');
  return { kind: 'exit', code: 2, text: `keyhold: unknown argument "${unknown.slice(0, 100)}"; keyhold takes config, --help, --version, backup or restore, and is configured by environment variables (keyhold --help lists them)\n` };
}
