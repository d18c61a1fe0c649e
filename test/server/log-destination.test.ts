// The server's log destination: a turn's lines in one write, in order, after
// the turn; nothing lost at exit; a full pipe waited on; a full disk or a
// reader gone never stops the process nor hangs its exit.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { turnBatchedDestination } from '../../src/server/log-destination.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const failure = (code: string) => Object.assign(new Error(code), { code });

/** A destination whose writes are recorded; `fail` decides what each attempt does. */
function recorded(fail: (attempt: number) => Error | undefined = () => undefined) {
  const writes: string[] = [];
  let attempts = 0;
  const sleeps: number[] = [];
  const destination = turnBatchedDestination({
    fd: 99,
    write: (_fd, bytes, offset) => {
      const err = fail(attempts++);
      if (err) throw err;
      writes.push(Buffer.from(bytes.subarray(offset)).toString());
      return bytes.length - offset;
    },
    sleep: (ms) => void sleeps.push(ms),
  });
  return { destination, writes, sleeps, attempts: () => attempts };
}

describe('the log destination', () => {
  it("writes a turn's lines once, in order, when the turn ends", async () => {
    const { destination, writes } = recorded();
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    destination.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    destination.write('{"n":4}\n');
    await turn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
  });

  it('waits on a full pipe and then writes everything', async () => {
    const { destination, writes, sleeps } = recorded((n) => (n < 2 ? failure('EAGAIN') : undefined));
    destination.write('a\n');
    await turn();
    expect(sleeps).toEqual([100, 100]);
    expect(writes).toEqual(['a\n']);
  });

  it("drops a turn's lines on a failed write (a full disk) and writes the next turn's", async () => {
    const { destination, writes } = recorded((n) => (n === 0 ? failure('ENOSPC') : undefined));
    destination.write('lost\n');
    await turn();
    destination.write('kept\n');
    await turn();
    expect(writes).toEqual(['kept\n']);
  });

  it('stops writing once the reader has gone (EPIPE)', async () => {
    const { destination, attempts } = recorded(() => failure('EPIPE'));
    destination.write('a\n');
    await turn();
    destination.write('b\n');
    await turn();
    expect(attempts()).toBe(1);
  });

  it('reports a failed flush to its caller', () => {
    const { destination } = recorded(() => failure('ENOSPC'));
    destination.write('a\n');
    let reported: Error | undefined;
    destination.flush((err) => (reported = err));
    expect(reported).toHaveProperty('code', 'ENOSPC');
  });
});

// A process that logs through pino with this destination, then does what `script` says.
const moduleUrl = new URL('../../src/server/log-destination.ts', import.meta.url).href;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
function logger(script: string, stdout: 'pipe' | number) {
  const source = `import pino from 'pino'; import { turnBatchedDestination } from '${moduleUrl}';
const log = pino({ base: null }, turnBatchedDestination());
${script}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { cwd: root, stdio: ['ignore', stdout, 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { child, exited };
}

describe('a process logging through it', () => {
  it('loses no line when it exits in the turn it logged', async () => {
    const { exited } = logger(`for (let n = 0; n < 500; n++) log.info({ n }, 'line'); process.exit(3);`, 'pipe');
    const { code, out } = await exited;
    expect(code).toBe(3);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { n: number });
    expect(lines.map((l) => l.n)).toEqual([...Array(500).keys()]);
  });

  it('loses no line of an uncaught exception’s turn', async () => {
    const { exited } = logger(`log.fatal('about to fail'); throw new Error('boom');`, 'pipe');
    const { code, out } = await exited;
    expect(code).toBe(1);
    expect(out).toContain('about to fail');
  });

  it('keeps running, and exits when asked, with its output on a full disk', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const { exited } = logger(
        `log.info('first'); setTimeout(() => { log.info('second'); process.stderr.write('alive\\n'); setTimeout(() => { log.info('last'); process.exit(0); }, 20); }, 20);`,
        full,
      );
      const { code, err } = await exited;
      expect(err).toContain('alive');
      expect(code).toBe(0);
    } finally {
      closeSync(full);
    }
  });

  it('exits when asked after its reader has gone', async () => {
    const { child, exited } = logger(
      `const tick = setInterval(() => log.info('line'), 1); process.on('SIGTERM', () => { clearInterval(tick); log.info('stopping'); process.exit(0); });`,
      'pipe',
    );
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    child.stdout!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGTERM');
    const { code } = await exited;
    expect(code).toBe(0);
  });
});
