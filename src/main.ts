// Entry of the `keyhold` command (bin/keyhold.js runs its build, dist/server/keyhold.mjs;
// `npm run dev` runs it through tsx). The command line is read first, and the
// server's modules are loaded only when a server is to start, so `--help`,
// `--version`, `config` and a refused argument answer at once.
import { cliAction } from './server/cli.js';

const action = cliAction(process.argv.slice(2));
if (action.kind === 'exit') {
  (action.code === 0 ? process.stdout : process.stderr).write(action.text);
  process.exitCode = action.code;
} else if (action.kind === 'config') {
  const { printConfig } = await import('./server/config-command.js');
  process.exitCode = printConfig(process.env, process.stdout, process.stderr);
} else {
  const { run } = await import('./server/run.js');
  await run();
}
