// REST/JSON routes derived at start-up from each method's google.api.http rule,
// grpc-gateway style: path parameters bind into the request message, `body: "*"`
// takes the JSON body, GET query parameters set scalar fields. The request then
// runs through the same interceptors and implementation as gRPC and Connect.
import type { IncomingHttpHeaders } from 'node:http';
import { fromJson, getOption, toJson, type DescField, type DescMessage, type DescMethod, type DescService, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { Code, ConnectError, createHandlerContext, createServiceImplSpec, type ContextValues, type Interceptor, type ServiceImpl } from '@connectrpc/connect';
import { invokeUnaryImplementation } from '@connectrpc/connect/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { http as httpRule } from '../../../gen/google/api/annotations_pb.js';
import type { RegisteredService } from '../../api/services.js';
import { KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { negotiateLanguage } from '../../domain/i18n/language.js';
import { readJsonBody } from './json-body.js';
import { fieldByName, jsonDecodeError } from './json-fields.js';
import { API_RESPONSE_HEADERS } from '../http/response-headers.js';
import { requestKey } from '../http/requests.js';
import { restStatusOf, statusJsonOf, toStatus } from './status.js';

export type { RegisteredService };

export interface RestRoute {
  httpMethod: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** fastify path, e.g. /management/v1/projects/:project_id/apps/oidc */
  path: string;
  method: DescMethod;
  bodyStar: boolean;
}

/** Every REST route the schema declares, in declaration order. */
export function restRoutesOf(services: readonly DescService[]): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      const rule = getOption(method, httpRule);
      // The rule and its additional bindings (one level, as grpc-gateway): e.g. a list's
      // GET kept next to its POST …/_search.
      for (const binding of [rule, ...rule.additionalBindings]) {
        const pattern = binding.pattern;
        if (!pattern.case || pattern.case === 'custom') continue;
        routes.push({
          httpMethod: pattern.case.toUpperCase() as RestRoute['httpMethod'],
          path: pattern.value.replace(/\{([a-z_][a-z0-9_]*)\}/g, ':$1'),
          method,
          bodyStar: binding.body === '*',
        });
      }
    }
  }
  return routes;
}

/** Query parameter names short and plain enough to be a field name, not a secret. */
const ECHOED_PARAMETER = /^[A-Za-z][A-Za-z0-9_.]{0,31}$/;

/** A query-string value as the protobuf JSON value its field expects. */
function queryValue(field: DescField, raw: string): JsonValue {
  if (field.fieldKind === 'scalar' || field.fieldKind === 'list') {
    const scalar = field.fieldKind === 'scalar' ? field.scalar : field.scalar;
    if (scalar === undefined) return raw;
    // ScalarType: 8 = BOOL, 9 = STRING, 12 = BYTES; numbers accept strings in proto JSON except 32-bit/float kinds.
    if (scalar === 8) return raw === 'true' ? true : raw === 'false' ? false : raw;
    if (scalar === 9 || scalar === 12) return raw;
    return raw.trim() !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  }
  return raw;
}

/**
 * A query parameter's field: `limit`, or a dotted path into message fields as grpc-gateway
 * takes them (`query.limit`), with the JSON object the value goes into. Unknown: no field.
 */
function queryField(input: DescMessage, key: string, json: JsonObject): { field?: DescField; target: JsonObject } {
  const names = key.split('.');
  let message = input;
  let target = json;
  for (const name of names.slice(0, -1)) {
    const field = fieldByName(message, name);
    if (field?.fieldKind !== 'message' || field.message.typeName.startsWith('google.protobuf.')) return { target };
    const inner = target[field.jsonName];
    const next: JsonObject = typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? inner : {};
    target[field.jsonName] = next;
    target = next;
    message = field.message;
  }
  const field = fieldByName(message, names[names.length - 1]!);
  return { field: field && field.fieldKind !== 'message' && field.fieldKind !== 'map' ? field : undefined, target };
}

/** Builds the request message; every problem becomes a 400 naming the field. */
function requestMessage(route: RestRoute, req: FastifyRequest): unknown {
  const input = route.method.input;
  const json: JsonObject = {};
  if (route.bodyStar && req.body !== undefined && req.body !== null) {
    if (typeof req.body !== 'object' || Array.isArray(req.body)) {
      throw new KeyholdError('MALFORMED_BODY', { problem: 'the body must be a JSON object' }, [
        violation('', { en: 'must be a JSON object', de: 'muss ein JSON-Objekt sein' }),
      ]);
    }
    Object.assign(json, req.body as JsonObject);
  }
  const query = (req.query ?? {}) as Record<string, string | string[]>;
  for (const [key, raw] of Object.entries(query)) {
    const { field, target } = queryField(input, key, json);
    if (!field) {
      // Named only when it looks like a field name: a token pasted into the query
      // (`?kh_…`) must not come back in the answer. Values are never echoed.
      const name = ECHOED_PARAMETER.test(key) ? key : '';
      throw new KeyholdError('MALFORMED_BODY', { problem: name ? `unknown query parameter "${name}"` : 'unknown query parameter' }, [
        violation(name, { en: 'is not a parameter of this endpoint', de: 'ist kein Parameter dieses Endpunkts' }),
      ]);
    }
    const values = Array.isArray(raw) ? raw : [raw];
    target[field.jsonName] = field.fieldKind === 'list' ? values.map((v) => queryValue(field, v)) : queryValue(field, values[values.length - 1]);
  }
  // Path parameters win over body fields of the same name, as in grpc-gateway.
  for (const [name, value] of Object.entries((req.params ?? {}) as Record<string, string>)) {
    const field = fieldByName(input, name);
    if (field) json[field.jsonName] = value;
  }
  try {
    return fromJson(input, json);
  } catch {
    throw jsonDecodeError(input, json);
  }
}

export function sendStatus(reply: FastifyReply, err: ConnectError, httpStatus = restStatusOf(err)): FastifyReply {
  // Headers an error carries (e.g. retry-after on RATE_LIMITED) go out as HTTP headers.
  err.metadata.forEach((value, name) => reply.header(name, value));
  // Also here for answers given before any hook ran (fastify's routing failures).
  reply.headers(API_RESPONSE_HEADERS);
  return reply.code(httpStatus).type('application/json; charset=utf-8').send(JSON.stringify(statusJsonOf(err)));
}

export function registerRestRoutes(
  app: FastifyInstance,
  services: readonly RegisteredService[],
  interceptors: Interceptor[],
  contextValuesOf?: (req: FastifyRequest) => ContextValues,
): RestRoute[] {
  // JSON bodies through the strict reader (json-body.ts) instead of fastify's
  // JSON.parse. The Connect routes, registered before in their own plugin
  // scope, keep their own parsers (protocol-errors.ts reads their JSON).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, readJsonBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  const all: RestRoute[] = [];
  for (const { desc, impl } of services) {
    const spec = createServiceImplSpec(desc, impl as ServiceImpl<DescService>);
    for (const route of restRoutesOf([desc])) {
      const methodSpec = spec.methods[route.method.localName];
      if (methodSpec?.kind !== 'unary') continue;
      all.push(route);
      app.route({
        method: route.httpMethod,
        url: route.path,
        handler: async (req, reply) => {
          const lang = negotiateLanguage(req.headers['accept-language']);
          const contextValues = contextValuesOf?.(req);
          const request = contextValues?.get(requestKey);
          try {
            const input = requestMessage(route, req);
            const ctx = createHandlerContext({
              service: desc,
              method: route.method,
              protocolName: 'rest',
              requestMethod: req.method,
              url: req.url,
              requestHeader: headersOf(req.headers),
              requestSignal: abortSignalOf(req),
              contextValues,
            });
            const output = await invokeUnaryImplementation(methodSpec, ctx, input as never, interceptors);
            return reply
              .code(200)
              .type('application/json; charset=utf-8')
              .send(JSON.stringify(toJson(route.method.output, output as never)));
          } catch (thrown) {
            // Interceptors already mapped handler errors; this maps the decoding ones.
            const err = toStatus(thrown, lang, {}, request).error;
            return sendStatus(reply, err);
          }
        },
      });
    }
  }
  return all;
}

function abortSignalOf(req: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  req.raw.once('close', () => {
    if (!req.raw.complete) controller.abort(new ConnectError('client closed the request', Code.Canceled));
  });
  return controller.signal;
}

/** Node's request headers (HTTP/1.1 or HTTP/2) as fetch Headers, without HTTP/2 pseudo-headers. */
export function headersOf(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const name in headers) {
    if (name.charCodeAt(0) === 58 /* ':' */) continue;
    const value = headers[name];
    if (value === undefined) continue;
    out.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return out;
}
