// Starts a real Keyhold for a test file: PGlite in a temp dir by default, or a
// fresh PostgreSQL database. Hands out the admin token and real clients.
import fs from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/server/config.js';
import { startKeyhold, type RunningKeyhold } from '../../src/server/start.js';
import { createPostgresDatabase, pgliteDirFromTemplate, TEST_MASTER_KEY, tempDir } from './databases.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface TestKeyhold extends RunningKeyhold {
  adminToken: string;
  dataDir: string;
  /** Lines Keyhold logged (JSON), for "no secret in logs" checks. */
  logLines: string[];
  transports(token?: string, headers?: Record<string, string>): Record<'grpc' | 'grpcWeb' | 'connect', Transport>;
  client<S extends DescService>(service: S, protocol?: 'grpc' | 'grpcWeb' | 'connect', token?: string, headers?: Record<string, string>): Client<S>;
  /** REST call: JSON in, { status, body } out. */
  rest(method: string, pathAndQuery: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export interface StartOptions {
  postgres?: boolean;
  /** With `postgres`: the new database's LC_COLLATE/LC_CTYPE (createdb -l). */
  postgresLocale?: 'C' | 'C.UTF-8' | 'POSIX';
  env?: Record<string, string>;
  /** Serve the console from this directory instead of console/dist (a test's own build). */
  consoleDir?: string;
  /** On PGlite: start in an empty data directory (PGlite's initdb) instead of a copy of the migrated template. */
  emptyDataDir?: boolean;
  /** false: the lines Keyhold logs are formatted and dropped, not kept in `logLines` (a soak's hours of request lines). */
  keepLogs?: boolean;
}

export async function startTestKeyhold(opts: StartOptions = {}): Promise<TestKeyhold> {
  // On PGlite a copy of the migrated template (databases.ts): an initdb per start cost 5–15 s
  // of the suite's time per file; bootstrap still runs on the copy, as on a first start.
  const onPglite = !opts.postgres && !opts.env?.DATABASE_URL && !opts.env?.KEYHOLD_DATA_DIR;
  const dataDir = onPglite && !opts.emptyDataDir ? await pgliteDirFromTemplate() : await tempDir('keyhold-srv-');
  const pg = opts.postgres ? await createPostgresDatabase({ locale: opts.postgresLocale }) : undefined;
  const config: Config = loadConfig({
    KEYHOLD_PORT: '0',
    KEYHOLD_DATA_DIR: dataDir,
    KEYHOLD_LOG_LEVEL: 'info',
    // Off: the servers of a test process share one heap, and one server's idle collection would
    // pause another's requests. idle-collection.test.ts and the soak turn it on.
    KEYHOLD_IDLE_COLLECT_SECONDS: '0',
    ...(pg ? { DATABASE_URL: pg.url, KEYHOLD_MASTERKEY: TEST_MASTER_KEY } : {}),
    // A test that names its own PostgreSQL gets the suite's master key too (required with DATABASE_URL).
    ...(opts.env?.DATABASE_URL ? { KEYHOLD_MASTERKEY: TEST_MASTER_KEY } : {}),
    ...opts.env,
  });
  if (opts.consoleDir) config.consoleDir = opts.consoleDir;
  const logLines: string[] = [];
  const log = pino({ ...(await import('../../src/server/logger.js')).loggerOptions(config) }, {
    write(line: string) {
      if (opts.keepLogs !== false) logLines.push(line);
    },
  });
  const running = await startKeyhold(config, log);
  const adminToken = fs.readFileSync(config.adminPatFile, 'utf8').trim();
  const baseUrl = `http://localhost:${running.port}`;

  const auth = (token?: string, headers?: Record<string, string>): Interceptor => (next) => (req) => {
    if (token) req.header.set('authorization', `Bearer ${token}`);
    for (const [k, v] of Object.entries(headers ?? {})) req.header.set(k, v);
    return next(req);
  };
  const transports = (token = adminToken, headers?: Record<string, string>) => ({
    grpc: createGrpcTransport({ baseUrl, interceptors: [auth(token, headers)] }),
    grpcWeb: createGrpcWebTransport({ baseUrl, httpVersion: '1.1', interceptors: [auth(token, headers)] }),
    connect: createConnectTransport({ baseUrl, httpVersion: '1.1', interceptors: [auth(token, headers)] }),
  });
  return {
    ...running,
    adminToken,
    dataDir,
    logLines,
    transports,
    client: (service, protocol = 'grpc', token, headers) => createClient(service, transports(token, headers)[protocol]),
    async rest(method, pathAndQuery, body, headers = {}) {
      const res = await fetch(baseUrl + pathAndQuery, {
        method,
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(headers.authorization === undefined && !('authorization' in headers) ? { authorization: `Bearer ${adminToken}` } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
      await pg?.drop();
    },
  };
}
