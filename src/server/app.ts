// Assembles the HTTP stack: one fastify instance on the one-port listener, with
// the Connect router (gRPC, gRPC-Web, Connect), REST routes from the schema,
// health endpoints, CORS, and Status-shaped answers for fastify's own errors.
import { ConnectError, createContextValues, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import type { UniversalHandler } from '@connectrpc/connect/protocol';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { toConnectError } from '../api/errors.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { negotiateLanguage } from '../domain/i18n/language.js';
import type { Config } from './config.js';
import { registerConsole } from './console.js';
import { registerCors } from './cors.js';
import { errorInterceptor } from './interceptors/errors.js';
import { authInterceptor, type ResolveToken } from './interceptors/auth.js';
import { withProtocolErrors } from './protocol-errors.js';
import { clientAddressKey, createRateLimiter, type RateLimiter } from './rate-limit.js';
import { createListener, DEFAULT_LIMITS, type Listener, type ListenerLimits } from './listener.js';
import { createGrpcUnaryHandler } from './grpc-unary.js';
import { registerRestRoutes, sendStatus, type RegisteredService, type RestRoute } from './rest.js';

export interface AppOptions {
  config: Config;
  log: Logger;
  services: readonly RegisteredService[];
  resolveToken: ResolveToken;
  /** Resolves when the database answers; rejects otherwise. */
  ready: () => Promise<void>;
  limits?: ListenerLimits;
  /** Extra interceptors after authentication (e.g. rate limiting). */
  interceptors?: Interceptor[];
}

export interface KeyholdApp {
  fastify: FastifyInstance;
  listener: Listener;
  routes: RestRoute[];
  /** Present when KEYHOLD_RATE_LIMIT_PER_SECOND > 0. */
  rateLimiter?: RateLimiter;
}

/** fastify error codes for request-shape failures, to Keyhold reasons. */
const FASTIFY_ERROR_REASONS: Record<string, KeyholdError['reason']> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MALFORMED_BODY',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_BODY',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_BODY',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
};

function pathMatcher(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[a-z_]+/g, '[^/]+')}$`);
}

export async function buildApp(opts: AppOptions): Promise<KeyholdApp> {
  const { config, log } = opts;
  let listener!: Listener;
  const fastify = Fastify({
    loggerInstance: log,
    // Per-request info lines cost throughput and say little; failures are logged where they happen.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    serverFactory: (handler) => {
      listener = createListener(handler, config.tls, opts.limits ?? config.limits ?? DEFAULT_LIMITS);
      return listener.server as never;
    },
  }) as unknown as FastifyInstance;

  registerCors(fastify, config.corsOrigins);

  const limiter = createRateLimiter(config.rateLimit);
  const interceptors: Interceptor[] = [
    errorInterceptor(log),
    ...(limiter ? [limiter.byAddress] : []),
    authInterceptor(opts.resolveToken),
    ...(limiter ? [limiter.byToken] : []),
    ...(opts.interceptors ?? []),
  ];
  // What interceptors may know about the connection (the client address, for per-IP limits).
  const contextValuesOf = (req: FastifyRequest) => createContextValues().set(clientAddressKey, listener.remoteAddress(req.raw));

  await fastify.register(fastifyConnectPlugin, {
    interceptors,
    readMaxBytes: config.bodyLimitBytes,
    contextValues: contextValuesOf,
    routes: (router: ConnectRouter) => {
      for (const s of opts.services) router.service(s.desc, s.impl as never);
      // The plugin reads router.handlers after this callback: wrap each in place.
      const handlers = router.handlers as UniversalHandler[];
      handlers.forEach((h, i) => (handlers[i] = withProtocolErrors(h, config.bodyLimitBytes)));
    },
  });

  // gRPC unary calls (binary, uncompressed, no deadline) skip the general stack;
  // same interceptors and implementations, same answers (grpc-unary.ts).
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  listener.interceptStreams(
    createGrpcUnaryHandler({
      services: opts.services,
      interceptors,
      readMaxBytes: config.bodyLimitBytes,
      contextValuesOf: (stream) => createContextValues().set(clientAddressKey, listener.streamAddress(stream)),
      closing: () => closing,
    }),
  );

  const routes = registerRestRoutes(fastify, opts.services, interceptors, contextValuesOf);
  const matchers = routes.map((r) => ({ method: r.httpMethod, re: pathMatcher(r.path) }));

  fastify.get('/healthz', async () => ({ status: 'SERVING' }));
  fastify.get('/readyz', async (req, reply) => {
    try {
      await opts.ready();
      return { status: 'SERVING' };
    } catch (e) {
      return sendStatus(reply, toConnectError(e, negotiateLanguage(req.headers['accept-language'])).error);
    }
  });

  registerConsole(fastify);

  fastify.setNotFoundHandler((req, reply) => {
    const lang = negotiateLanguage(req.headers['accept-language']);
    const path = (req.url.split('?')[0] ?? '').slice(0, 256);
    const otherMethod = matchers.some((m) => m.re.test(path) && m.method !== req.method);
    const err = new KeyholdError(otherMethod ? 'METHOD_NOT_ALLOWED' : 'ROUTE_NOT_FOUND', { method: req.method, path });
    return sendStatus(reply, toConnectError(err, lang).error, otherMethod ? 405 : undefined);
  });

  fastify.setErrorHandler((error: Error & { code?: string; statusCode?: number }, req, reply) => {
    const lang = negotiateLanguage(req.headers['accept-language']);
    const reason = error.code ? FASTIFY_ERROR_REASONS[error.code] : undefined;
    if (reason) {
      const problem = reason === 'MALFORMED_BODY' ? 'the body is not valid JSON' : reason.toLowerCase();
      const err = toConnectError(new KeyholdError(reason, { problem, limit: String(config.bodyLimitBytes) }), lang).error;
      // Keep the precise HTTP status fastify chose (400, 413, 415) with the gRPC code of the reason.
      return sendStatus(reply, err, error.statusCode && error.statusCode < 500 ? error.statusCode : 400);
    }
    if (error instanceof ConnectError) return sendStatus(reply, error);
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      const err = toConnectError(new KeyholdError('MALFORMED_BODY', { problem: 'the request could not be read' }), lang).error;
      return sendStatus(reply, err, error.statusCode);
    }
    log.error({ err: error }, 'unhandled error in request');
    return sendStatus(reply, toConnectError(error, lang).error);
  });

  return { fastify, listener, routes, rateLimiter: limiter };
}
