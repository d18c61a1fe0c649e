// A real SMTP server (the smtp-server package) in a process of its own, for
// tests: listens on 127.0.0.1 on a free port, prints `listening <port>`, then
// one JSON line per accepted message ({ from, to, raw } with raw in base64).
// Arguments as JSON in argv[2]: { user?, password?, hideStartTls?, reject? }.
import { SMTPServer } from 'smtp-server';

const opts = JSON.parse(process.argv[2] ?? '{}');
const server = new SMTPServer({
  // No certificate here: the tests send in plaintext to loopback (KEYHOLD_SMTP_TLS=none);
  // `hideStartTls` makes a server that cannot do STARTTLS at all.
  hideSTARTTLS: !!opts.hideStartTls,
  disabledCommands: opts.user ? [] : ['AUTH'],
  allowInsecureAuth: true,
  authOptional: !opts.user,
  logger: false,
  onAuth(auth, _session, callback) {
    if (auth.username === opts.user && auth.password === opts.password) return callback(null, { user: auth.username });
    return callback(new Error('Invalid username or password'));
  },
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
      if (opts.reject) {
        const err = new Error('Mailbox unavailable');
        err.responseCode = 550;
        return callback(err);
      }
      const raw = Buffer.concat(chunks).toString('base64');
      const line = JSON.stringify({ from: session.envelope.mailFrom?.address, to: session.envelope.rcptTo.map((r) => r.address), raw, user: session.user ?? null });
      process.stdout.write(`${line}\n`, () => callback());
    });
  },
});
server.on('error', (e) => process.stderr.write(`${e.message}\n`));
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
