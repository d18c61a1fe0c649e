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
import { createPostgresDatabase, tempDir } from './databases.js';

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
  env?: Record<string, string>;
}

export async function startTestKeyhold(opts: StartOptions = {}): Promise<TestKeyhold> {
  const dataDir = await tempDir('keyhold-srv-');
  const pg = opts.postgres ? await createPostgresDatabase() : undefined;
  const config: Config = loadConfig({
    KEYHOLD_PORT: '0',
    KEYHOLD_DATA_DIR: dataDir,
    KEYHOLD_LOG_LEVEL: 'info',
    ...(pg ? { DATABASE_URL: pg.url } : {}),
    ...opts.env,
  });
  const logLines: string[] = [];
  const log = pino({ ...(await import('../../src/server/logger.js')).loggerOptions(config) }, {
    write(line: string) {
      logLines.push(line);
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
