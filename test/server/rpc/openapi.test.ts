// GET /openapi.json: a valid OpenAPI 3.1 document (checked by
// @seriousme/openapi-schema-validator against the specification's own JSON
// schema, and every Schema Object compiled by Ajv as JSON Schema 2020-12) that
// lists exactly the routes REST serves, and whose schemas describe what the
// server really answers: real responses and real errors are validated
// against them.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { PUBLIC_METHODS } from '../../../src/server/rpc/interceptors/auth.js';
import { openApiDocument } from '../../../src/server/rpc/openapi.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let kh: TestKeyhold;
let doc: any;
beforeAll(async () => {
  kh = await startTestKeyhold();
  const res = await fetch(`${kh.url.replace('127.0.0.1', 'localhost')}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
});
afterAll(async () => kh?.close());

const DEFS_ID = 'https://keyhold.test/openapi.json';

/** `schema` with its component references pointed into the Ajv copy of the components. */
function forAjv<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${DEFS_ID}#/$defs/`));
}

/**
 * Ajv (JSON Schema 2020-12, strict: unknown keywords are errors; a oneof's
 * "at most one" names properties of its parent, which strictRequired would flag) holding the
 * document's component schemas, with the OpenAPI formats the document uses.
 */
function ajvWithComponents(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats(ajv);
  for (const f of ['int32', 'uint32', 'int64', 'uint64', 'double', 'float']) ajv.addFormat(f, true);
  ajv.addSchema({ $id: DEFS_ID, $defs: forAjv(doc.components.schemas) });
  return ajv;
}

/** Validates a value against a document schema (a component $ref). */
function schemaValidator() {
  const ajv = ajvWithComponents();
  return (schema: object, value: unknown) => {
    const validate = ajv.compile(forAjv(schema));
    const ok = validate(value);
    return { ok, errors: JSON.stringify(validate.errors) };
  };
}

/** The component name a `$ref` schema points to. */
function refName(schema: any): string {
  const ref = schema.$ref as string;
  expect(ref).toMatch(/^#\/components\/schemas\//);
  return ref.slice('#/components/schemas/'.length);
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, every schema valid JSON Schema 2020-12, every $ref resolving', async () => {
    const validator = new Validator();
    // A copy: the validator resolves references in place.
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    // The specification's schema leaves Schema Objects alone: compile each one (strict: unknown keywords fail).
    const ajv = ajvWithComponents();
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`${DEFS_ID}#/$defs/${name}`), name).not.toThrow();
      expect(ajv.getSchema(`${DEFS_ID}#/$defs/${name}`), name).toBeDefined();
    }
    for (const ops of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(ops)) {
        const body = op.requestBody?.content['application/json'].schema;
        if (body) expect(() => ajv.compile(forAjv(body)), op.operationId).not.toThrow();
        for (const p of op.parameters ?? []) expect(() => ajv.compile(forAjv(p.schema)), `${op.operationId} ${p.name}`).not.toThrow();
      }
    }
  });

  it('lists exactly the routes REST serves, with their path parameters', () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const served = kh.app.routes.map((r) => `${r.httpMethod} ${r.path.replace(/:([a-z_][a-z0-9_]*)/g, '{$1}')}`);
    expect(served.length).toBeGreaterThan(15);
    expect(documented.sort()).toEqual(served.sort());
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const inPath = [...path.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)].map((m) => m[1]);
      for (const op of Object.values(ops)) {
        const params = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        expect(params, path).toEqual(inPath);
      }
    }
  });

  it('AddOIDCApp: project_id in the path, the other fields in the body, proto3 JSON types', () => {
    const op = doc.paths['/management/v1/projects/{project_id}/apps/oidc'].post;
    expect(op.operationId).toBe('ManagementService_AddOIDCApp');
    expect(op.parameters).toEqual([{ name: 'project_id', in: 'path', required: true, schema: { type: 'string' } }]);
    const body = op.requestBody.content['application/json'].schema;
    expect(body.properties.projectId).toBeUndefined();
    expect(body.properties.redirectUris).toEqual({ type: 'array', items: { type: 'string' } });
    expect(body.properties.devMode).toEqual({ type: 'boolean' });
    expect(doc.components.schemas[refName(body.properties.clockSkew)]).toMatchObject({ type: 'string', pattern: expect.any(String) });
    const appType = doc.components.schemas[refName(body.properties.appType)];
    expect(appType).toEqual({ type: 'string', enum: ['OIDC_APP_TYPE_WEB', 'OIDC_APP_TYPE_USER_AGENT', 'OIDC_APP_TYPE_NATIVE'] });
    const response = doc.components.schemas[refName(op.responses['200'].content['application/json'].schema)];
    expect(Object.keys(response.properties)).toEqual(['appId', 'details', 'clientId', 'clientSecret', 'noneCompliant', 'complianceProblems']);
    const details = doc.components.schemas[refName(response.properties.details)];
    expect(details.properties.sequence).toMatchObject({ type: 'string', format: 'uint64' });
    expect(doc.components.schemas[refName(details.properties.creationDate)]).toMatchObject({ type: 'string', format: 'date-time' });
    expect(op.responses.default).toEqual({ $ref: '#/components/responses/Error' });
  });

  it('bearer auth everywhere but on the public methods; errors are google.rpc.Status with Any details', () => {
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/management/v1/healthz'].get.security).toEqual([]);
    expect(doc.paths['/auth/v1/users/me'].get.security).toBeUndefined();
    const status = doc.components.schemas['google.rpc.Status'];
    expect(Object.keys(status.properties)).toEqual(['code', 'message', 'details']);
    const kinds = status.properties.details.items.anyOf.map((s: any) => s.allOf?.[0].properties['@type'].const ?? s.$ref);
    expect(kinds).toEqual([
      'type.googleapis.com/google.rpc.ErrorInfo',
      'type.googleapis.com/google.rpc.BadRequest',
      'type.googleapis.com/google.rpc.LocalizedMessage',
      'type.googleapis.com/google.rpc.RetryInfo',
      '#/components/schemas/google.protobuf.Any',
    ]);
  });

  it("describes what the server really answers: responses and errors validate against the document's schemas", async () => {
    const check = schemaValidator();
    const schemaOf = (path: string, method: string) => doc.paths[path][method].responses['200'].content['application/json'].schema;
    const errorSchema = doc.components.responses.Error.content['application/json'].schema;

    const project = await kh.rest('POST', '/management/v1/projects', { name: 'OpenAPI' });
    expect(project.status).toBe(200);
    expect(check(schemaOf('/management/v1/projects', 'post'), project.body)).toEqual({ ok: true, errors: 'null' });

    const app = await kh.rest('POST', `/management/v1/projects/${project.body.id}/apps/oidc`, {
      name: 'Documented',
      appType: 'OIDC_APP_TYPE_NATIVE',
      redirectUris: ['http://example.com/cb'],
      clockSkew: '1.5s',
    });
    expect(app.status).toBe(200);
    expect(app.body.complianceProblems.length).toBeGreaterThan(0);
    expect(check(schemaOf('/management/v1/projects/{project_id}/apps/oidc', 'post'), app.body)).toEqual({ ok: true, errors: 'null' });

    const got = await kh.rest('GET', `/management/v1/projects/${project.body.id}/apps/${app.body.appId}`);
    expect(check(schemaOf('/management/v1/projects/{project_id}/apps/{app_id}', 'get'), got.body)).toEqual({ ok: true, errors: 'null' });
    const me = await kh.rest('GET', '/auth/v1/users/me');
    expect(check(schemaOf('/auth/v1/users/me', 'get'), me.body)).toEqual({ ok: true, errors: 'null' });

    // A request the document's body schema refuses is refused by the server too, and the error fits Status.
    const bad = await kh.rest('POST', `/management/v1/projects/${project.body.id}/apps/oidc`, { name: 'x', appType: 'OIDC_APP_TYPE_TOASTER', redirectUris: 'not a list' });
    expect(bad.status).toBe(400);
    expect(check(errorSchema, bad.body)).toEqual({ ok: true, errors: 'null' });
    expect(bad.body.details.map((d: any) => d['@type'])).toEqual(expect.arrayContaining(['type.googleapis.com/google.rpc.ErrorInfo', 'type.googleapis.com/google.rpc.BadRequest']));
    const unauthenticated = await kh.rest('GET', '/auth/v1/users/me', undefined, { authorization: '' });
    expect(unauthenticated.status).toBe(401);
    expect(check(errorSchema, unauthenticated.body)).toEqual({ ok: true, errors: 'null' });

    // And the document's body schema says the same of the bad body.
    const body = doc.paths['/management/v1/projects/{project_id}/apps/oidc'].post.requestBody.content['application/json'].schema;
    expect(check(body, { name: 'x', appType: 'OIDC_APP_TYPE_TOASTER', redirectUris: 'not a list' }).ok).toBe(false);
    expect(check(body, { name: 'x', appType: 'OIDC_APP_TYPE_NATIVE', redirectUris: ['http://localhost/cb'], clockSkew: '2s' }).ok).toBe(true);
  });

  it('a route without a body takes the fields left after the path from the query (none of today\'s GET routes has any)', () => {
    // AddOIDCApp's request as if its rule were a GET: every field a query value can set becomes a parameter.
    const route = { httpMethod: 'GET' as const, path: '/t/:project_id', method: ManagementService.method.addOIDCApp, bodyStar: false };
    const op = (openApiDocument([route], { title: 't', version: '0', publicMethods: PUBLIC_METHODS }) as any).paths['/t/{project_id}'].get;
    const query = op.parameters.filter((p: any) => p.in === 'query');
    expect(query.map((p: any) => p.name)).toEqual(ManagementService.method.addOIDCApp.input.fields.filter((f) => f.name !== 'project_id').map((f) => f.jsonName));
    expect(query.find((p: any) => p.name === 'redirectUris')).toMatchObject({ schema: { type: 'array' }, style: 'form', explode: true });
    expect(query.find((p: any) => p.name === 'clockSkew').schema).toEqual({ $ref: '#/components/schemas/google.protobuf.Duration' });
    expect(op.requestBody).toBeUndefined();
  });
});
