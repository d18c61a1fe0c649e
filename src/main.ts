// Entry of the `keyhold` command (bin/keyhold.js runs its build, dist/server/keyhold.mjs;
// `npm run dev` runs it through tsx). The command line is read first, and the
// server's modules are loaded only when a server is to start, so `--help`,
// `--version`, `config` and a refused argument answer at once (and `backup`/`restore`
// load their own, without the server's).
import { cliAction } from './server/cli.js';

const action = cliAction(process.argv.slice(2));
if (action.kind === 'exit') {
  (action.code === 0 ? process.stdout : process.stderr).write(action.text);
  process.exitCode = action.code;
} else if (action.kind === 'config') {
  const { printConfig } = await import('./server/config-command.js');
  process.exitCode = printConfig(process.env, process.stdout, process.stderr);
} else if (action.kind === 'backup' || action.kind === 'restore') {
  // Everything they write is for this user only, as the server's files are (each file and directory also gets its mode).
  process.umask(0o077);
  const { runBackup, runRestore } = await import('./server/backup.js');
  process.exitCode = action.kind === 'backup' ? await runBackup(action.file, action.includeMasterKey) : await runRestore(action.file, action.masterKeyFile);
} else {
  const { run } = await import('./server/run.js');
  await run();
}
