// The OpenAPI 3.1 document of the REST API, served at GET /openapi.json. It is
// made at start-up from the routes REST serves (rest.ts, from the
// google.api.http rules) and the message descriptors it transcodes with, so
// it cannot drift from what the server does: path parameters bind into the
// request message, `body: "*"` takes the other fields, routes without a body
// take the other scalar fields from the query string. Schemas follow the
// proto3 JSON mapping protobuf-es applies (lowerCamelCase names, 64-bit
// integers as strings, enums by name, well-known types in their JSON forms);
// every error is a google.rpc.Status with its Any details.
import {
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonObject,
} from '@bufbuild/protobuf';
import { StatusSchema } from '../../../gen/google/rpc/status_pb.js';
import { BadRequestSchema, ErrorInfoSchema, LocalizedMessageSchema, RetryInfoSchema } from '../../../gen/google/rpc/error_details_pb.js';
import type { RestRoute } from './rest.js';

type Schema = JsonObject;

export interface OpenApiOptions {
  title: string;
  version: string;
  /** "<service typeName>/<method name>" of the methods callable without a token. */
  publicMethods: ReadonlySet<string>;
}

/** The details Keyhold puts into a google.rpc.Status (api/errors.ts, rate-limit.ts). */
const ERROR_DETAILS: readonly DescMessage[] = [ErrorInfoSchema, BadRequestSchema, LocalizedMessageSchema, RetryInfoSchema];

const INT64 = /^-?[0-9]+$/.source;
const UINT64 = /^[0-9]+$/.source;

function scalarSchema(type: ScalarType): Schema {
  switch (type) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      // JSON numbers, or the strings proto3 JSON uses for the values JSON lacks.
      return { anyOf: [{ type: 'number', format: type === ScalarType.DOUBLE ? 'double' : 'float' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: 'integer', format: 'int32' };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', format: 'uint32', minimum: 0, maximum: 4294967295 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: 'string', format: 'int64', pattern: INT64 };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: 'string', format: 'uint64', pattern: UINT64 };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
  }
}

const DURATION: Schema = { type: 'string', pattern: /^-?[0-9]+(\.[0-9]{1,9})?s$/.source, description: 'A duration in seconds with up to nine fractional digits, e.g. "1.5s".', examples: ['1.5s'] };

/** Well-known types whose JSON form is not an object of their fields. */
const WELL_KNOWN: Record<string, Schema> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time', description: 'RFC 3339, UTC ("Z"), e.g. "2026-01-31T12:00:00Z".' },
  'google.protobuf.Duration': DURATION,
  'google.protobuf.Struct': { type: 'object', additionalProperties: true },
  'google.protobuf.Value': { description: 'Any JSON value.' },
  'google.protobuf.ListValue': { type: 'array', items: {} },
  'google.protobuf.FieldMask': { type: 'string', description: 'Comma-separated lowerCamelCase field paths.' },
  'google.protobuf.Empty': { type: 'object' },
  'google.protobuf.Any': {
    type: 'object',
    required: ['@type'],
    properties: { '@type': { type: 'string', description: 'type.googleapis.com/<full message name>' } },
    additionalProperties: true,
    description: "A message of the named type, its fields beside '@type'.",
  },
  'google.protobuf.DoubleValue': scalarSchema(ScalarType.DOUBLE),
  'google.protobuf.FloatValue': scalarSchema(ScalarType.FLOAT),
  'google.protobuf.Int64Value': scalarSchema(ScalarType.INT64),
  'google.protobuf.UInt64Value': scalarSchema(ScalarType.UINT64),
  'google.protobuf.Int32Value': scalarSchema(ScalarType.INT32),
  'google.protobuf.UInt32Value': scalarSchema(ScalarType.UINT32),
  'google.protobuf.BoolValue': scalarSchema(ScalarType.BOOL),
  'google.protobuf.StringValue': scalarSchema(ScalarType.STRING),
  'google.protobuf.BytesValue': scalarSchema(ScalarType.BYTES),
};

const ref = (typeName: string): Schema => ({ $ref: `#/components/schemas/${typeName}` });

/** Collects the component schemas of every message and enum reached. */
class Components {
  readonly schemas: Record<string, Schema> = {};

  message(desc: DescMessage): Schema {
    if (!(desc.typeName in this.schemas)) {
      this.schemas[desc.typeName] = {}; // placeholder: recursive messages refer to themselves
      this.schemas[desc.typeName] = WELL_KNOWN[desc.typeName] ?? this.messageObject(desc, desc.fields);
    }
    return ref(desc.typeName);
  }

  enum(desc: DescEnum): Schema {
    if (desc.typeName === 'google.protobuf.NullValue') return { type: 'null' };
    this.schemas[desc.typeName] ??= { type: 'string', enum: desc.values.map((v) => v.name) };
    return ref(desc.typeName);
  }

  /** An object of `fields` (all of the message's, or those left for a body). */
  messageObject(desc: DescMessage, fields: readonly DescField[]): Schema {
    const properties: Record<string, Schema> = {};
    for (const field of fields) properties[field.jsonName] = this.field(field);
    const schema: Schema = { type: 'object', properties };
    // A oneof allows at most one of its fields.
    const exclusive = desc.oneofs
      .map((o) => o.fields.filter((f) => fields.includes(f)).map((f) => f.jsonName))
      .filter((names) => names.length > 1)
      .flatMap((names) => names.flatMap((a, i) => names.slice(i + 1).map((b) => ({ required: [a, b] }))));
    if (exclusive.length > 0) schema.not = { anyOf: exclusive };
    return schema;
  }

  field(field: DescField): Schema {
    switch (field.fieldKind) {
      case 'scalar':
        return scalarSchema(field.scalar);
      case 'enum':
        return this.enum(field.enum);
      case 'message':
        return this.message(field.message);
      case 'list': {
        const items = field.listKind === 'scalar' ? scalarSchema(field.scalar) : field.listKind === 'enum' ? this.enum(field.enum) : this.message(field.message);
        return { type: 'array', items };
      }
      case 'map': {
        const values = field.mapKind === 'scalar' ? scalarSchema(field.scalar) : field.mapKind === 'enum' ? this.enum(field.enum) : this.message(field.message);
        return { type: 'object', additionalProperties: values };
      }
    }
  }
}

/** Messages whose JSON form is one string, which a query value can carry as it is. */
const STRING_MESSAGES = new Set(['google.protobuf.Timestamp', 'google.protobuf.Duration', 'google.protobuf.FieldMask']);

/** Fields a query string can set (rest.ts queryValue): scalars and enums, single or repeated, and the string-shaped messages. */
function queryable(field: DescField): boolean {
  if (field.fieldKind === 'message') return STRING_MESSAGES.has(field.message.typeName);
  return field.fieldKind === 'scalar' || field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind !== 'message');
}

/** `/a/:b` (fastify) → `/a/{b}` (OpenAPI). */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([a-z_][a-z0-9_]*)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: out, params };
}

function fieldNamed(message: DescMessage, name: string): DescField {
  const field = message.fields.find((f) => f.name === name || f.jsonName === name);
  // rest.ts binds path parameters by the same lookup; a rule naming no field is a schema error.
  if (!field) throw new Error(`${message.typeName} has no field "${name}" for its path parameter`);
  return field;
}

export function openApiDocument(routes: readonly RestRoute[], options: OpenApiOptions): JsonObject {
  const components = new Components();
  const paths: Record<string, Record<string, Schema>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const { method } = route;
    const service = method.parent;
    const { path, params } = openApiPath(route.path);
    const pathFields = params.map((p) => fieldNamed(method.input, p));
    const rest = method.input.fields.filter((f) => !pathFields.includes(f));
    const parameters: Schema[] = pathFields.map((f, i) => ({ name: params[i], in: 'path', required: true, schema: components.field(f) }));
    const operation: Schema = {
      // An additional binding of the same method gets its own id (OpenAPI wants them unique).
      operationId: operationIds.has(`${service.name}_${method.name}`) ? `${service.name}_${method.name}_${route.httpMethod}` : `${service.name}_${method.name}`,
      tags: [service.typeName],
      summary: method.name,
      description: `The REST form of ${service.typeName}/${method.name}, also served over gRPC, gRPC-Web and Connect.`,
    };
    if (route.bodyStar) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: components.messageObject(method.input, rest) } },
      };
    } else {
      for (const f of rest.filter(queryable)) {
        parameters.push({ name: f.jsonName, in: 'query', required: false, schema: components.field(f), ...(f.fieldKind === 'list' ? { style: 'form', explode: true } : {}) });
      }
      // A message's scalar fields by their dotted path (`query.limit`), as rest.ts reads them.
      for (const f of rest.filter((f) => f.fieldKind === 'message' && !queryable(f) && !f.message.typeName.startsWith('google.'))) {
        for (const inner of f.fieldKind === 'message' ? f.message.fields.filter((g) => g.fieldKind === 'scalar' || g.fieldKind === 'enum') : []) {
          parameters.push({ name: `${f.jsonName}.${inner.jsonName}`, in: 'query', required: false, schema: components.field(inner) });
        }
      }
    }
    if (parameters.length > 0) operation.parameters = parameters;
    operation.responses = {
      '200': { description: 'OK: the response message; fields with their default value are left out.', content: { 'application/json': { schema: components.message(method.output) } } },
      default: { $ref: '#/components/responses/Error' },
    };
    if (options.publicMethods.has(`${service.typeName}/${method.name}`)) operation.security = [];
    operationIds.add(operation.operationId as string);
    (paths[path] ??= {})[route.httpMethod.toLowerCase()] = operation;
  }

  // google.rpc.Status, its details as the Any types Keyhold sends (or any other).
  components.message(StatusSchema);
  const detail = (desc: DescMessage): Schema => ({
    allOf: [{ type: 'object', required: ['@type'], properties: { '@type': { const: `type.googleapis.com/${desc.typeName}` } } }, components.message(desc)],
  });
  const status = components.schemas[StatusSchema.typeName] as { properties: Record<string, Schema> };
  status.properties.details = { type: 'array', items: { anyOf: [...ERROR_DETAILS.map(detail), ref('google.protobuf.Any')] } };

  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      description:
        'The REST/JSON face of the Keyhold API, generated from the same schema as its gRPC, gRPC-Web and Connect faces. ' +
        'Bodies follow the proto3 JSON mapping: lowerCamelCase names (the proto names are accepted too), 64-bit integers as strings, enums by name. ' +
        'Unknown fields are refused with 400. Every error is a google.rpc.Status whose ErrorInfo carries a stable reason; the HTTP status follows the gRPC code.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components.schemas,
      responses: {
        Error: { description: 'An error: google.rpc.Status.', content: { 'application/json': { schema: ref(StatusSchema.typeName) } } },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A personal access token: "Authorization: Bearer <token>".' },
      },
    },
  };
}
