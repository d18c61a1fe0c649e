// Keyhold as a real child process (`node --import tsx src/main.ts`, or the
// build as `npm start` runs it), the way an operator runs it: configured by
// environment, found through the "listening" log line, killed with a real
// signal and restarted on the same data dir or database. For the crash,
// scale-out, outage and shutdown tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_MASTER_KEY } from './databases.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChildOptions {
  /** KEYHOLD_DATA_DIR: the PGlite directory, or (with a database URL) where the PAT file goes. */
  dataDir: string;
  /** DATABASE_URL; without it the child runs on PGlite in `dataDir`. */
  databaseUrl?: string;
  /** KEYHOLD_ADMIN_PAT_FILE; default `<dataDir>/admin.pat`. */
  adminPatFile?: string;
  env?: Record<string, string>;
  /** How long to wait for the "listening" line (default 60 s: a cold tsx + PGlite start on a busy CI box is slow). */
  startTimeoutMs?: number;
  /** What runs: the sources through tsx (default), or the build `npm start` runs (bin/keyhold.js, dist/). */
  entry?: 'source' | 'build';
  /** Node's own options, before the entry (a module hook's --import, say). */
  nodeArgs?: string[];
}

/** A started process, before it listens: its output as it comes, its exit. */
export interface SpawnedKeyhold {
  readonly child: ChildProcess;
  /** The child's stdout and stderr lines (the last 5000). */
  readonly output: string[];
  /** Settles when the process has exited and its output has been read to the end. */
  readonly exited: Promise<Exit>;
  /** The URL of the "listening" line; rejects when the process exits first or stays silent past `startTimeoutMs`. */
  listening(): Promise<string>;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RestResult {
  status: number;
  body: any;
  /** Wall time of the request, in ms. */
  ms: number;
}

export interface ChildKeyhold {
  readonly options: ChildOptions;
  readonly pid: number;
  readonly url: string;
  readonly adminPatFile: string;
  /** The admin token from the PAT file (as written at this or an earlier start); undefined when there is no file. */
  readonly adminToken: string | undefined;
  /** The child's stdout and stderr lines (the last 5000). */
  readonly output: string[];
  /** Settles when the process has exited and its output has been read to the end. */
  readonly exited: Promise<Exit>;
  /** Send `signal` and wait for the exit. */
  kill(signal?: 'SIGKILL' | 'SIGTERM'): Promise<Exit>;
  /** REST call with the admin token (or `token`); never throws for an HTTP status, only for a failed connection or a timeout. */
  rest(method: string, pathAndQuery: string, body?: unknown, opts?: { token?: string; timeoutMs?: number }): Promise<RestResult>;
}

// Children still running when the test process exits are killed with it.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const MAX_LINES = 5000;

const ENTRIES = { source: ['--import', 'tsx', 'src/main.ts'], build: ['bin/keyhold.js'] } as const;

const patFileOf = (options: ChildOptions) => options.adminPatFile ?? path.join(options.dataDir, 'admin.pat');

/** The URL of a "Keyhold listening on" log line; undefined for any other line. */
function listeningUrl(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg?.startsWith('Keyhold listening on') && entry.url ? entry.url : undefined;
  } catch {
    return undefined; // not a log line
  }
}

/** Start Keyhold as a child process; its output is kept from the first line. */
export function spawnKeyhold(options: ChildOptions): SpawnedKeyhold {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    KEYHOLD_PORT: '0',
    KEYHOLD_HOST: '127.0.0.1',
    KEYHOLD_DATA_DIR: options.dataDir,
    KEYHOLD_ADMIN_PAT_FILE: patFileOf(options),
    KEYHOLD_LOG_LEVEL: 'info',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl, KEYHOLD_MASTERKEY: TEST_MASTER_KEY } : {}),
    ...options.env,
  };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...ENTRIES[options.entry ?? 'source']], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<Exit>((resolve) => {
    // 'close', not 'exit': the lines written last, at the exit, may still be on their way.
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });

  const output: string[] = [];
  let onLine: ((line: string) => void) | undefined;
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        output.push(line);
        if (output.length > MAX_LINES) output.splice(0, output.length - MAX_LINES);
        onLine?.(line);
      }
    });
  }

  const listening = () =>
    new Promise<string>((resolve, reject) => {
      const seen = output.map(listeningUrl).find((url) => url !== undefined);
      if (seen) return resolve(seen);
      const timeoutMs = options.startTimeoutMs ?? 60_000;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`Keyhold child did not log "listening" within ${timeoutMs} ms:\n${output.slice(-20).join('\n')}`));
      }, timeoutMs);
      onLine = (line) => {
        const url = listeningUrl(line);
        if (!url) return;
        clearTimeout(timer);
        onLine = undefined;
        resolve(url);
      };
      void exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`Keyhold child exited before listening (${JSON.stringify(exit)}):\n${output.slice(-20).join('\n')}`));
      });
    });
  return { child, output, exited, listening };
}

/** Start Keyhold as a child process and wait until it listens. */
export async function startChildKeyhold(options: ChildOptions): Promise<ChildKeyhold> {
  const adminPatFile = patFileOf(options);
  const { child, output, exited, listening } = spawnKeyhold(options);
  const url = await listening();

  const adminToken = existsSync(adminPatFile) ? readFileSync(adminPatFile, 'utf8').trim() : undefined;
  return {
    options,
    pid: child.pid!,
    url,
    adminPatFile,
    adminToken,
    output,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    rest: (method, pathAndQuery, body, opts = {}) => rest(url, method, pathAndQuery, body, opts.token ?? adminToken, opts.timeoutMs),
  };
}

/** Start a new child with the same options (same data dir / database); it gets a new port. */
export function restartChildKeyhold(previous: ChildKeyhold, overrides: Partial<ChildOptions> = {}): Promise<ChildKeyhold> {
  return startChildKeyhold({ ...previous.options, ...overrides });
}

/** One REST call against `baseUrl`: JSON in, { status, body, ms } out. */
export async function rest(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  body?: unknown,
  token?: string,
  timeoutMs = 20_000,
): Promise<RestResult> {
  const started = performance.now();
  const res = await fetch(baseUrl + pathAndQuery, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed, ms: performance.now() - started };
}
