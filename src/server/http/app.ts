// Assembles the HTTP stack: one fastify instance on the one-port listener, with
// the Connect router (gRPC, gRPC-Web, Connect), REST routes from the schema,
// health endpoints, CORS, and Status-shaped answers for fastify's own errors.
import { ConnectError, createContextValues, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import type { UniversalHandler } from '@connectrpc/connect/protocol';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { negotiateLanguage } from '../../domain/i18n/language.js';
import type { Config } from '../config.js';
import { registerConsole } from '../console.js';
import { registerCors } from './cors.js';
import { withDeadlines } from '../rpc/deadline.js';
import { errorInterceptor } from '../rpc/interceptors/errors.js';
import { authInterceptor, type ResolveToken } from '../rpc/interceptors/auth.js';
import { withProtocolErrors } from '../rpc/protocol-errors.js';
import { API_RESPONSE_HEADERS } from './response-headers.js';
import { clientAddressKey, createRateLimiter, type RateLimiter } from './rate-limit.js';
import { createListener, DEFAULT_LIMITS, type Listener, type ListenerLimits } from './listener.js';
import { createGrpcUnaryHandler } from '../rpc/grpc-unary.js';
import { refusalAnswer } from './refusals.js';
import type { RawAnswer, RefusedRequest, Refusal } from './request-head.js';
import { registerRestRoutes, sendStatus, type RegisteredService, type RestRoute } from '../rpc/rest.js';
import { toStatus } from '../rpc/status.js';
import { operationalServices } from '../rpc/operational-services.js';
import { openApiDocument } from '../rpc/openapi.js';
import { PUBLIC_METHODS } from '../rpc/interceptors/auth.js';
import { KEYHOLD_VERSION } from '../version.js';
import { repeatedErrorLog, type RepeatedErrorLog } from '../repeated-errors.js';
import type { Metrics, Protocol } from '../metrics.js';
import { REQUEST_ID_HEADER, requestKey, requestTracker, userAgentOf, type RequestRecord, type RequestTracker } from './requests.js';
import { mountOidc, type OidcDeps, type OidcMount } from '../oidc/mount.js';
import { isOidcPath, oidcRouteOf } from '../oidc/paths.js';
import { trustedProxies } from './trusted-proxies.js';
import type { NoteOAuthError } from '../oidc/error-notes.js';

export interface AppOptions {
  config: Config;
  log: Logger;
  services: readonly RegisteredService[];
  resolveToken: ResolveToken;
  /** The OpenID Provider's issuer, once known: what a DPoP proof's `htu` starts with (interceptors/auth.ts). */
  issuer: () => string;
  /** Resolves when the database answers; rejects otherwise. */
  ready: () => Promise<void>;
  limits?: ListenerLimits;
  /** Extra interceptors after authentication (e.g. rate limiting). */
  interceptors?: Interceptor[];
  /** Where server-side errors are logged (default: one of its own on `log`). */
  errors?: RepeatedErrorLog;
  /** Keyhold's instruments (metrics.ts): every request is counted there, and GET /metrics renders them. */
  metrics: Metrics;
  /** The OpenID Provider's ports; without them it is not mounted. */
  oidc?: Omit<OidcDeps, 'log' | 'errors'>;
}

export interface KeyholdApp {
  fastify: FastifyInstance;
  listener: Listener;
  routes: RestRoute[];
  /** Present when KEYHOLD_RATE_LIMIT_PER_SECOND > 0. */
  rateLimiter?: RateLimiter;
  errors: RepeatedErrorLog;
  /** The OpenID Provider (src/server/oidc), when mounted; start() it once the port is known. */
  oidc?: OidcMount;
  /** Requests served over every protocol, probes and scrapes left out (requests.ts). */
  requestsServed: RequestTracker['served'];
}

function pathMatcher(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[a-z_][a-z0-9_]*/g, '[^/]+')}$`);
}

const MAX_PARAM_LENGTH = 100;

/** fastify's routing failures, which it answers itself (quoting the whole URL) unless handed here; REST keeps HTTP's sharper word. */
const ROUTING_HTTP_STATUS: Readonly<Record<string, number>> = { FST_ERR_BAD_URL: 400, FST_ERR_MAX_PARAM_LENGTH: 414 };

/** Which of the three protocols a request to a Connect route speaks, by its content type. */
function connectProtocol(contentType: string | undefined): Protocol {
  if (contentType === undefined) return 'connect'; // a Connect GET
  if (/^application\/grpc-web/i.test(contentType)) return 'grpc_web';
  if (/^application\/grpc/i.test(contentType)) return 'grpc';
  return 'connect';
}

/** Probes and scrapes: their request lines go to debug, and they do not keep the server from being idle (requests.ts). */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);
const HEALTH_SERVICE = 'grpc.health.v1.Health';

export async function buildApp(opts: AppOptions): Promise<KeyholdApp> {
  const { config, log } = opts;
  // Every request's record (requests.ts): made when fastify has routed it (or
  // when an answer is given before that, or the listener refuses its head),
  // ended when its response closes.
  const tracker = requestTracker(log, opts.metrics);
  /** A refused head (refusals.ts) is a request too: its id, its answer, its log line. */
  const refuse = (refusal: Refusal, request: RefusedRequest): RawAnswer => {
    const record = tracker.begin(request.requestId);
    record.clientAddress = proxies.clientAddress(request.peer, request.headers ?? {});
    record.userAgent = userAgentOf(request.userAgent);
    const answer = refusalAnswer(refusal, request, record);
    tracker.end(record, answer.status, true);
    return answer;
  };
  const limits = { readMaxBytes: config.bodyLimitBytes, maxParamLength: MAX_PARAM_LENGTH };
  // Every protocol's path below runs these: a call past its deadline never starts (deadline.ts).
  const services = opts.services.map(withDeadlines);
  let listener!: Listener;
  // X-Forwarded-For of these peers only (trusted-proxies.ts): `req.ip` is the client's address everywhere.
  const proxies = trustedProxies(config.trustedProxies ?? []);
  const fastify = Fastify({
    trustProxy: proxies.any ? (address: string) => proxies.trusts(address) : false,
    loggerInstance: log,
    // Per-request info lines cost throughput and say little; failures are logged where they happen.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A Status like every other error, and never the URL back (a token pasted into it must not return).
    frameworkErrors: (error, req, reply) => {
      const status = ROUTING_HTTP_STATUS[(error as { code?: string }).code ?? ''];
      const known = status === undefined ? new KeyholdError('REQUEST_MALFORMED', { problem: 'the request could not be routed' }) : error;
      return sendStatus(reply, toStatus(known, negotiateLanguage(req.headers['accept-language']), limits, recordOf(req, reply)).error, status ?? 400);
    },
    // A request that reaches a route while closing is served like any in-flight one (close waits
    // for it, then stop() closes the database): fastify's own closing 503 carries no Status (REST)
    // and no grpc-status (gRPC), and new connections are refused by the listener anyway.
    return503OnClosing: false,
    // The listener answers what Node's HTTP/1.1 parser refuses (answerClientErrors); fastify's own
    // handler, left in place, would destroy the socket under that answer (a reset on Node 24 over TLS).
    clientErrorHandler: () => {},
    serverFactory: (handler) => {
      listener = createListener(handler, config.tls, opts.limits ?? config.limits ?? DEFAULT_LIMITS, refuse);
      return listener.server as never;
    },
  }) as unknown as FastifyInstance;

  const records = new WeakMap<object, RequestRecord>();
  /** RPC paths of the Connect router and REST routes ("GET /path/:param"), filled below as they are registered. */
  const connectMethods = new Map<string, { service: string; method: string }>();
  const restMethods = new Map<string, RestRoute>();
  const recordOf = (req: FastifyRequest, reply: FastifyReply): RequestRecord => {
    let record = records.get(req.raw);
    if (record) return record;
    const made = (record = tracker.begin(req.headers[REQUEST_ID_HEADER]));
    // Who asked, by the one walk the rate limits and throttles use (trusted-proxies.ts).
    made.clientAddress = proxies.clientAddress(listener.remoteAddress(req.raw), req.headers);
    made.userAgent = userAgentOf(req.headers['user-agent']);
    records.set(req.raw, made);
    reply.header(REQUEST_ID_HEADER, made.id);
    reply.raw.once('close', () => tracker.end(made, reply.raw.statusCode, reply.raw.writableEnded));
    const url = req.routeOptions?.url;
    if (url === undefined) return made; // not routed: neither an RPC nor a route to name (never the raw URL)
    const rpc = connectMethods.get(url);
    const rest = rpc ? undefined : restMethods.get(`${req.routeOptions.method} ${url}`);
    if (rpc) {
      Object.assign(made, rpc, { protocol: connectProtocol(req.headers['content-type']), quiet: rpc.service === HEALTH_SERVICE });
    } else if (rest) {
      made.protocol = 'rest';
      made.service = rest.method.parent.typeName;
      made.method = rest.method.name;
      made.route = `${rest.httpMethod} ${rest.path.replace(/:([a-z_][a-z0-9_]*)/g, '{$1}')}`;
    } else {
      made.route = `${req.method} ${url}`;
      made.quiet = QUIET_ROUTES.has(url);
    }
    return made;
  };
  const errors = opts.errors ?? repeatedErrorLog(log);
  // The provider's requests are hijacked below, before the hook that makes every other
  // request's record: theirs is made here, named by route (oidc/paths.ts), never by URL.
  if (opts.oidc) {
    fastify.addHook('onRequest', (req, reply, done) => {
      const path = req.url.split('?')[0] ?? '';
      if (isOidcPath(path)) {
        const record = recordOf(req, reply);
        record.route = oidcRouteOf(req.method, path);
        reply.raw.setHeader(REQUEST_ID_HEADER, record.id); // a hijacked reply never sends fastify's headers
      }
      done();
    });
  }
  // First: its paths are hijacked before CORS, the API headers and body parsing (oidc/mount.ts).
  const noteOAuthError: NoteOAuthError = (raw, note) => {
    const record = records.get(raw);
    if (!record) return;
    if (note.error !== undefined) Object.assign(record, { reason: note.error, description: note.description });
    if (note.clientId !== undefined) record.clientId = note.clientId;
  };
  const limiter = createRateLimiter(config.rateLimit, (by) => opts.metrics.rateLimited(by));
  // A pushed authorization request spends the address's API budget (oidc/mount.ts pushLimit).
  const pushLimit = limiter
    ? (address: string) => {
        const taken = limiter.takeAddress(address);
        if (!taken.ok) opts.metrics.rateLimited('address');
        return taken;
      }
    : undefined;
  const oidc = opts.oidc ? mountOidc(fastify, {
        ...opts.oidc,
        log,
        errors,
        noteOAuthError,
        pushLimit,
        // The one walk of X-Forwarded-For (trusted-proxies.ts): a login session's address.
        clientOf: (raw) => ({ address: proxies.clientAddress(listener.remoteAddress(raw), raw.headers), userAgent: [raw.headers['user-agent']].flat()[0] }),
      }) : undefined;

  registerCors(fastify, config.corsOrigins);
  // Before the Connect plugin registers its routes, so they inherit it (as CORS above).
  fastify.addHook('onRequest', (req, reply, done) => {
    recordOf(req, reply);
    reply.headers(API_RESPONSE_HEADERS);
    done();
  });

  const interceptors: Interceptor[] = [
    errorInterceptor(errors),
    ...(limiter ? [limiter.byAddress] : []),
    authInterceptor(opts.resolveToken, opts.issuer),
    ...(limiter ? [limiter.byToken] : []),
    ...(opts.interceptors ?? []),
  ];
  // What interceptors may know about the connection (the client address, for per-IP limits).
  // And the request's record, for the error mapping (its id) and its log line (the caller).
  const contextValuesOf = (req: FastifyRequest) => {
    const record = records.get(req.raw);
    const address = record?.clientAddress ?? proxies.clientAddress(listener.remoteAddress(req.raw), req.headers);
    const values = createContextValues().set(clientAddressKey, address).set(requestKey, record);
    if (record) record.context = values;
    return values;
  };

  // gRPC health and reflection beside the API (operational-services.ts); not REST routes.
  const operational = operationalServices(opts.services, opts.ready);
  const served = [...services, ...operational.services];
  for (const s of served) for (const m of s.desc.methods) connectMethods.set(`/${s.desc.typeName}/${m.name}`, { service: s.desc.typeName, method: m.name });

  await fastify.register(fastifyConnectPlugin, {
    interceptors,
    readMaxBytes: config.bodyLimitBytes,
    // As REST: an unknown JSON field is a 400 naming it, not silently dropped (connect-es ignores them by default).
    jsonOptions: { ignoreUnknownFields: false },
    contextValues: contextValuesOf,
    routes: (router: ConnectRouter) => {
      for (const s of served) router.service(s.desc, s.impl as never);
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
    operational.close();
  });
  listener.interceptStreams(
    createGrpcUnaryHandler({
      services: served,
      interceptors,
      readMaxBytes: config.bodyLimitBytes,
      contextValuesOf: (stream, headers) => createContextValues().set(clientAddressKey, proxies.clientAddress(listener.streamAddress(stream), headers)),
      closing: () => closing,
      tracker,
    }),
  );

  const routes = registerRestRoutes(fastify, services, interceptors, contextValuesOf);
  for (const r of routes) restMethods.set(`${r.httpMethod} ${r.path}`, r);
  const matchers = routes.map((r) => ({ method: r.httpMethod, re: pathMatcher(r.path), endpoint: r.path.replace(/:([a-z_][a-z0-9_]*)/g, '{$1}') }));

  // The OpenAPI document of exactly these routes, made once (openapi.ts). Public, like the schema reflection shows.
  const openapi = JSON.stringify(openApiDocument(routes, { title: 'Keyhold', version: KEYHOLD_VERSION, publicMethods: PUBLIC_METHODS }));
  fastify.get('/openapi.json', (_req, reply) => reply.type('application/json; charset=utf-8').send(openapi));

  // Prometheus metrics (metrics.ts), unauthenticated like /healthz: counts and timings by
  // RPC, never an id or a value a client sent (docs/operations.md, Metrics). KEYHOLD_METRICS=off removes it.
  if (config.metrics) {
    fastify.get('/metrics', async (_req, reply) => {
      const { contentType, body } = await opts.metrics.render();
      return reply.type(contentType).send(body);
    });
  }

  fastify.get('/healthz', async () => ({ status: 'SERVING' }));
  fastify.get('/readyz', async (req, reply) => {
    try {
      await opts.ready();
      return { status: 'SERVING' };
    } catch (e) {
      return sendStatus(reply, toStatus(e, negotiateLanguage(req.headers['accept-language']), limits, recordOf(req, reply)).error);
    }
  });

  registerConsole(fastify, config.consoleDir);

  // Neither answer quotes the path or the query the client sent (a token put
  // there by mistake must not come back): the endpoint's template at most.
  fastify.setNotFoundHandler((req, reply) => {
    const lang = negotiateLanguage(req.headers['accept-language']);
    const path = req.url.split('?')[0] ?? '';
    const same = matchers.filter((m) => m.re.test(path));
    const record = recordOf(req, reply);
    if (same.length === 0) return sendStatus(reply, toStatus(new KeyholdError('ROUTE_NOT_FOUND'), lang, {}, record).error);
    reply.header('allow', [...new Set(same.map((m) => m.method))].join(', '));
    const err = new KeyholdError('METHOD_NOT_ALLOWED', { endpoint: same[0].endpoint });
    return sendStatus(reply, toStatus(err, lang, {}, record).error, 405);
  });

  fastify.setErrorHandler((error: Error & { code?: string; statusCode?: number }, req, reply) => {
    const mapped = toStatus(error, negotiateLanguage(req.headers['accept-language']), limits, recordOf(req, reply));
    if (mapped.internal) errors.error(mapped.logged ?? error, {}, 'unhandled error in request');
    // fastify's own refusals (400, 413, 415) keep the precise HTTP status it chose, with the gRPC code of the reason.
    const own = !(error instanceof KeyholdError) && !(error instanceof ConnectError) && error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500;
    return sendStatus(reply, mapped.error, own ? error.statusCode : undefined);
  });

  return { fastify, listener, routes, rateLimiter: limiter, errors, oidc, requestsServed: tracker.served };
}
