// REST/JSON routes derived at start-up from each method's google.api.http rule,
// grpc-gateway style: path parameters bind into the request message, `body: "*"`
// takes the JSON body, GET query parameters set scalar fields. The request then
// runs through the same interceptors and implementation as gRPC and Connect.
import { fromJson, getOption, toJson, type DescField, type DescMessage, type DescMethod, type DescService, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { Code, ConnectError, createHandlerContext, createServiceImplSpec, type Interceptor, type ServiceImpl } from '@connectrpc/connect';
import { invokeUnaryImplementation } from '@connectrpc/connect/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { http as httpRule } from '../../gen/google/api/annotations_pb.js';
import { toConnectError } from '../api/errors.js';
import { KeyholdError, violation } from '../domain/errors/keyhold-error.js';
import { negotiateLanguage } from '../domain/i18n/language.js';
import { httpStatusOf, statusJsonOf } from './status.js';

export interface RegisteredService {
  desc: DescService;
  /** Methods by local name; missing ones answer UNIMPLEMENTED. */
  impl: object;
}

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
      const pattern = rule.pattern;
      if (!pattern.case || pattern.case === 'custom') continue;
      routes.push({
        httpMethod: pattern.case.toUpperCase() as RestRoute['httpMethod'],
        path: pattern.value.replace(/\{([a-z_][a-z0-9_]*)\}/g, ':$1'),
        method,
        bodyStar: rule.body === '*',
      });
    }
  }
  return routes;
}

function fieldByName(message: DescMessage, key: string): DescField | undefined {
  return message.fields.find((f) => f.jsonName === key || f.name === key);
}

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
    const field = fieldByName(input, key);
    if (!field) {
      throw new KeyholdError('MALFORMED_BODY', { problem: `unknown query parameter "${key.slice(0, 64)}"` }, [
        violation(key.slice(0, 64), { en: 'is not a parameter of this endpoint', de: 'ist kein Parameter dieses Endpunkts' }),
      ]);
    }
    const values = Array.isArray(raw) ? raw : [raw];
    json[field.jsonName] = field.fieldKind === 'list' ? values.map((v) => queryValue(field, v)) : queryValue(field, values[values.length - 1]);
  }
  // Path parameters win over body fields of the same name, as in grpc-gateway.
  for (const [name, value] of Object.entries((req.params ?? {}) as Record<string, string>)) {
    const field = fieldByName(input, name);
    if (field) json[field.jsonName] = value;
  }
  try {
    return fromJson(input, json);
  } catch (e) {
    throw jsonDecodeError(input, e);
  }
}

/**
 * protobuf-es names the offending field in its message ("… field
 * keyhold.x.Request.app_type from JSON: …" or "key "foo" is unknown");
 * turn that into a field violation with the JSON name.
 */
function jsonDecodeError(input: DescMessage, e: unknown): KeyholdError {
  const text = e instanceof Error ? e.message : String(e);
  const fieldMatch = /field ([\w.]+)\.(\w+) from JSON/.exec(text);
  const unknownKey = /key "([^"]{0,64})[^"]*" is unknown/.exec(text);
  let field = '';
  let en = 'has an invalid value';
  let de = 'hat einen ungültigen Wert';
  if (unknownKey) {
    field = unknownKey[1];
    en = 'is not a field of this request';
    de = 'ist kein Feld dieser Anfrage';
  } else if (fieldMatch) {
    const desc = input.typeName === fieldMatch[1] ? input.fields.find((f) => f.name === fieldMatch[2]) : undefined;
    field = desc?.jsonName ?? fieldMatch[2];
    if (desc?.fieldKind === 'enum' || (desc?.fieldKind === 'list' && desc.listKind === 'enum')) {
      en = 'is not one of the allowed values';
      de = 'ist keiner der erlaubten Werte';
    }
  }
  // The library's text may quote client input; keep only a bounded prefix of it.
  return new KeyholdError('INVALID_REQUEST', { fields: field || 'body' }, [
    violation(field, { en, de }),
  ]);
}

export function sendStatus(reply: FastifyReply, err: ConnectError): FastifyReply {
  return reply.code(httpStatusOf(err.code)).type('application/json; charset=utf-8').send(JSON.stringify(statusJsonOf(err)));
}

export function registerRestRoutes(app: FastifyInstance, services: readonly RegisteredService[], interceptors: Interceptor[]): RestRoute[] {
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
          try {
            const input = requestMessage(route, req);
            const ctx = createHandlerContext({
              service: desc,
              method: route.method,
              protocolName: 'rest',
              requestMethod: req.method,
              url: req.url,
              requestHeader: headersOf(req),
              requestSignal: abortSignalOf(req),
            });
            const output = await invokeUnaryImplementation(methodSpec, ctx, input as never, interceptors);
            return reply
              .code(200)
              .type('application/json; charset=utf-8')
              .send(JSON.stringify(toJson(route.method.output, output as never)));
          } catch (thrown) {
            // Interceptors already mapped handler errors; this maps the decoding ones.
            const err = thrown instanceof ConnectError && thrown.details.length > 0 ? thrown : toConnectError(thrown, lang).error;
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

/** Node's header object as fetch Headers, without HTTP/2 pseudo-headers. */
export function headersOf(req: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}
