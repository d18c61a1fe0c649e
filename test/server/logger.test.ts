// The logger's redaction: what a failed start logs about a DATABASE_URL that no
// URL parser takes (its password holds an unencoded `#`) names the error, never the URL.
// Its destination: lines written in batches, none lost when the process exits.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { LOG_BATCH, loggerOptions } from '../../src/server/logger.js';
import { repoRoot } from '../support/keyhold.js';

describe('logger redaction', () => {
  it("a URL error's input (a DATABASE_URL with its password) is not logged", () => {
    const lines: string[] = [];
    const log = pino(loggerOptions({ logLevel: 'info' }), { write: (line: string) => void lines.push(line) });
    let err: unknown;
    try {
      new URL('postgres://keyhold:SE#CRET@127.0.0.1:x/db');
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('ERR_INVALID_URL');
    log.fatal({ err }, 'keyhold could not start');
    expect(lines.join('\n')).toContain('ERR_INVALID_URL');
    expect(lines.join('\n')).not.toContain('SE#CRET');
  });
});

describe('the log destination of a Keyhold process', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs `body` in a child process with Keyhold's logger on its standard output; the lines as they came, and when. */
  async function childLog(body: string): Promise<{ lines: Array<{ at: number; entry: { msg: string; n?: number } }>; code: number | null }> {
    dir ??= await mkdtemp(path.join(tmpdir(), 'keyhold-log-'));
    const file = path.join(dir, `child-${Math.random().toString(36).slice(2)}.mts`);
    const logger = pathToFileURL(path.join(repoRoot, 'src/server/logger.ts')).href;
    const pinoUrl = pathToFileURL(createRequire(import.meta.url).resolve('pino')).href;
    await writeFile(file, `import pino from ${JSON.stringify(pinoUrl)};\nimport { logDestination, loggerOptions } from ${JSON.stringify(logger)};\nconst log = pino(loggerOptions({ logLevel: 'info' }), logDestination());\n${body}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: Array<{ at: number; entry: { msg: string; n?: number } }> = [];
    let partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const line of parts) lines.push({ at: Date.now(), entry: JSON.parse(line) });
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    return { lines, code };
  }

  it(`a quiet process's line is written soon (within ${LOG_BATCH.ms} ms), not held until a batch fills`, { timeout: 30_000 }, async () => {
    const { lines, code } = await childLog(`log.info('ready'); const at = Date.now(); setTimeout(() => { log.info({ n: at }, 'later'); }, 2000);`);
    expect(code).toBe(0);
    const ready = lines.find((l) => l.entry.msg === 'ready')!;
    const later = lines.find((l) => l.entry.msg === 'later')!;
    // "ready" reached the reader well before the process went on to its next line, 2 s later.
    expect(later.at - ready.at).toBeGreaterThan(1_000);
  });

  it('every line is written when the process exits: at its end, on process.exit, after a fatal line', { timeout: 30_000 }, async () => {
    const many = await childLog(`for (let n = 0; n < 1000; n++) log.info({ n }, 'line');`);
    expect(many.code).toBe(0);
    expect(many.lines.map((l) => l.entry.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    const exiting = await childLog(`for (let n = 0; n < 10; n++) log.info({ n }, 'line'); log.fatal('stopping'); process.exit(3);`);
    expect(exiting.code).toBe(3);
    expect(exiting.lines.map((l) => l.entry.msg)).toEqual([...Array<string>(10).fill('line'), 'stopping']);
  });
});
