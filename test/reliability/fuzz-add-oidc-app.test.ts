// Hostile input against AddOIDCApp over REST, gRPC (typed messages through
// connect-node's gRPC transport) and raw HTTP/2 gRPC frames. Invariants for every
// case: never a 5xx / INTERNAL / UNKNOWN, always a google.rpc.Status with an
// ErrorInfo, and a rejected request appends no event (an accepted one exactly two).
// Two properties go after classes rather than bytes (hostile-text.ts): URIs and
// origins (a 400 names the entry; an accepted one is stored as the browser reads
// it, and the text sent reads the same to an RFC 3986 parser), and names (a 400
// names the field; an accepted name holds nothing hidden, and its look-alike
// spellings — NFD, full-width, case, padded — never pass).
import type http2 from 'node:http2';
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { BadRequestSchema } from '../../gen/google/rpc/error_details_pb.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddOIDCAppRequestSchema, ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { trailerParse } from '@connectrpc/connect/protocol-grpc-web';
import { byteMutation, describeMutation, hostileRestBody, lenField, mutateBytes, type RawBody, postRaw } from './hostile.js';
import { displayNameDefect, fullWidth, hostileName, hostileOrigin, hostileUri, originAmbiguity, redirectUriAmbiguity, usernameDefect } from './hostile-text.js';
import { restFields } from '../support/errors.js';
import { assertRawGrpcError, assertRestStatus, assertRpcError, eventCount, grpcFrame, h2Session, labelled, rawGrpc, sizeSummary, Tally } from './support.js';

// Generous: the suite runs files in parallel on small machines; alone each test takes seconds.
const FUZZ_TIMEOUT_MS = 180_000;
// Cases per run: each run draws new ones (fast-check's seed differs), so the suite's runs add up;
// one run's share is sized to keep the suite within CI's time per leg.
const RUNS = { rest: 150, grpc: 125, raw: 150, web: 75, uris: 150, names: 75 };
const PATH = '/keyhold.management.v1.ManagementService/AddOIDCApp';

let kh: TestKeyhold;
let projectId: string;
let session: http2.ClientHttp2Session;
let n = 0;
const uniqueName = () => `fuzz-${++n}-${Date.now()}`;

beforeAll(async () => {
  kh = await startTestKeyhold();
  projectId = (await kh.client(ManagementService).addProject({ name: 'Fuzz' })).id;
});
afterAll(async () => {
  // Server-side failures are logged at error level: show them when a case went wrong.
  const errors = kh?.logLines.filter((l) => /"level":(50|60)/.test(l)) ?? [];
  if (errors.length) console.log(`[fuzz] server error log lines:\n${errors.map((l) => l.slice(0, 2000)).join('\n')}`);
  session?.close();
  await kh?.close();
});

const validBody = () => ({ name: uniqueName(), redirectUris: ['https://a.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' });
const KEYS = AddOIDCAppRequestSchema.fields.map((f) => f.jsonName);

function restCase(body: RawBody) {
  return postRaw(`http://127.0.0.1:${kh.port}/management/v1/projects/${projectId}/apps/oidc`, kh.adminToken, body);
}

/** Runs one case: the event count moves by exactly `onSuccess` when accepted, else not at all. */
async function invariant(tally: Tally, run: () => Promise<{ ok: boolean; reason: string }>, onSuccess = 2) {
  const before = await eventCount(kh);
  const { ok, reason } = await run();
  const after = await eventCount(kh);
  expect(after - before, `events after ${reason}`).toBe(ok ? onSuccess : 0);
  tally.add(reason);
}

describe('AddOIDCApp under hostile input', () => {
  it(`REST: ${RUNS.rest} generated bodies`, async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(labelled(hostileRestBody(KEYS, validBody), (b) => `${b.label} (${b.bytes.length} bytes, ${b.contentType})`), async (body) => {
        await invariant(tally, async () => {
          const res = await restCase(body);
          if (res.status === 200) return { ok: true, reason: 'OK' };
          return { ok: false, reason: assertRestStatus(res.status, res.body, body.label).reason };
        });
      }),
      { numRuns: RUNS.rest },
    );
    console.log(`[fuzz] AddOIDCApp REST: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(RUNS.rest);
  }, FUZZ_TIMEOUT_MS);

  it(`gRPC (connect-node, binary): ${RUNS.grpc} generated messages`, async () => {
    const client = kh.client(ManagementService, 'grpc');
    const tally = new Tally();
    // Sizes stay under the 2 MiB message limit: the oversized message is a limits test
    // of its own (a Node HTTP/2 client keeps the unsent rest of a refused message queued
    // on its session, so a run of them would exhaust the client, not the server).
    const shortStr = fc.oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
      { weight: 2, arbitrary: fc.constantFrom('https://a.example/cb', 'http://localhost/cb', 'myapp://cb', 'https://a.example', '', ' ', '\u0000', '\ud800') },
    );
    const str = fc.oneof(
      { weight: 5, arbitrary: shortStr },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', '🔑', '\u0000', '\ud800', 'https://a.example/'), fc.integer({ min: 201, max: 60_000 })).map(([u, k]) => u.repeat(k)) },
    );
    const list = <T>(item: fc.Arbitrary<T>, short: fc.Arbitrary<T>) =>
      fc.oneof(
        { weight: 4, arbitrary: fc.array(item, { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.tuple(short, fc.integer({ min: 101, max: 5000 })).map(([v, k]) => Array.from({ length: k }, () => v)) },
      );
    const enumValue = fc.oneof(fc.integer({ min: 0, max: 6 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
    const fields = {
      projectId: str,
      name: str,
      redirectUris: list(str, shortStr),
      responseTypes: list(enumValue, enumValue),
      grantTypes: list(enumValue, enumValue),
      appType: enumValue,
      authMethodType: enumValue,
      postLogoutRedirectUris: list(str, shortStr),
      version: enumValue,
      devMode: fc.boolean(),
      accessTokenType: enumValue,
      clockSkew: fc.record({ seconds: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), nanos: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) }),
      additionalOrigins: list(str, shortStr),
    };
    const request = labelled(
      fc.oneof(
        // Mostly a valid request with one to three hostile fields; sometimes everything at once.
        { weight: 3, arbitrary: fc.record(fields, { requiredKeys: [] }).chain((r) => fc.subarray(Object.keys(r), { minLength: 0, maxLength: 3 }).map((keep) => Object.fromEntries(keep.map((k) => [k, (r as Record<string, unknown>)[k]])))) },
        { weight: 1, arbitrary: fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>> },
      ),
      (r) => sizeSummary(r),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const msg = { projectId, name: uniqueName(), redirectUris: ['https://a.example/cb'], authMethodType: 2, ...r } as MessageInitShape<typeof AddOIDCAppRequestSchema>;
        await invariant(tally, async () => {
          try {
            if (process.env.FUZZ_DEBUG) console.log('case', toBinary(AddOIDCAppRequestSchema, create(AddOIDCAppRequestSchema, msg)).length, sizeSummary(r).slice(0, 200));
            await client.addOIDCApp(msg);
            return { ok: true, reason: 'OK' };
          } catch (e) {
            return { ok: false, reason: assertRpcError(e, 'typed gRPC').reason };
          }
        });
      }),
      { numRuns: RUNS.grpc },
    );
    console.log(`[fuzz] AddOIDCApp gRPC: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(RUNS.grpc);
  }, FUZZ_TIMEOUT_MS);

  it(`gRPC raw HTTP/2: ${RUNS.raw} mutated and garbage frames`, async () => {
    // Connected now, not in beforeAll: a connection without a request is closed after the headers timeout.
    session = h2Session(kh.port);
    const tally = new Tally();
    const valid = () =>
      toBinary(AddOIDCAppRequestSchema, create(AddOIDCAppRequestSchema, { projectId, name: uniqueName(), redirectUris: ['https://a.example/cb'], authMethodType: 3 }));
    const badUtf8 = fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]);
    type Case = { label: string; frame: () => Buffer; headers?: Record<string, string> };
    const cases: fc.Arbitrary<Case> = labelled(fc.oneof(
      { weight: 5, arbitrary: byteMutation.map((m): Case => ({ label: `message ${describeMutation(m)}`, frame: () => grpcFrame(mutateBytes(valid(), m)) })) },
      {
        weight: 2,
        arbitrary: fc.tuple(fc.constantFrom(1, 2, 3, 8, 16), badUtf8).map(([field, bad]): Case => ({
          label: `invalid UTF-8 in field ${field}`,
          frame: () => grpcFrame(Uint8Array.from([...lenField(1, Buffer.from(projectId)), ...lenField(field === 1 ? 2 : field, [0x61, ...bad]), ...lenField(2, Buffer.from(uniqueName()))])),
        })),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom<Case>(
          { label: 'empty body, no frame', frame: () => Buffer.alloc(0) },
          { label: 'half a prefix', frame: () => Buffer.from([0, 0, 0]) },
          { label: 'compressed flag without grpc-encoding', frame: () => grpcFrame(valid(), 1) },
          { label: 'unknown flag bits', frame: () => grpcFrame(valid(), 0x7e) },
          { label: 'declared length longer than sent', frame: () => grpcFrame(valid(), 0, 4096) },
          { label: 'declared length shorter than sent', frame: () => grpcFrame(valid(), 0, 3) },
          { label: 'declared length 4 GiB', frame: () => grpcFrame(valid(), 0, 0xffffffff) },
          { label: 'two messages in a unary call', frame: () => Buffer.concat([grpcFrame(valid()), grpcFrame(valid())]) },
          { label: 'gzip claimed, garbage sent', frame: () => grpcFrame(Buffer.from('not gzip at all'), 1), headers: { 'grpc-encoding': 'gzip' } },
          { label: 'unknown grpc-encoding', frame: () => grpcFrame(valid(), 1), headers: { 'grpc-encoding': 'lz77' } },
          { label: 'bad grpc-timeout', frame: () => grpcFrame(valid()), headers: { 'grpc-timeout': '99999999999H' } },
        ),
      },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b): Case => ({ label: 'garbage after the prefix', frame: () => grpcFrame(b) })) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b): Case => ({ label: 'garbage without a prefix', frame: () => Buffer.from(b) })) },
    ), (c) => c.label);
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        await invariant(tally, async () => {
          const r = await rawGrpc(session, PATH, c.frame(), { authorization: `Bearer ${kh.adminToken}`, ...c.headers });
          if (r.grpcStatus === 0) return { ok: true, reason: 'OK' };
          return { ok: false, reason: assertRawGrpcError(r, c.label) };
        });
      }),
      { numRuns: RUNS.raw },
    );
    console.log(`[fuzz] AddOIDCApp raw gRPC: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(RUNS.raw);
  }, FUZZ_TIMEOUT_MS);

  it(`Connect (application/proto) and gRPC-Web (binary) over HTTP/1.1: ${RUNS.web} mutated messages each`, async () => {
    const tally = new Tally();
    const valid = () =>
      toBinary(AddOIDCAppRequestSchema, create(AddOIDCAppRequestSchema, { projectId, name: uniqueName(), redirectUris: ['https://a.example/cb'], authMethodType: 2 }));
    const post = (contentType: string, body: Uint8Array) =>
      fetch(`http://127.0.0.1:${kh.port}${PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${kh.adminToken}`, 'content-type': contentType },
        body: Buffer.from(body),
      });
    const mutation = labelled(fc.record({ m: byteMutation }), ({ m }) => describeMutation(m));
    await fc.assert(
      fc.asyncProperty(mutation, async ({ m }) => {
        // Connect unary: the error is a JSON body with an HTTP status.
        await invariant(tally, async () => {
          const res = await post('application/proto', mutateBytes(valid(), m));
          const bytes = Buffer.from(await res.arrayBuffer());
          if (res.status === 200) return { ok: true, reason: 'OK' };
          const what = `Connect ${describeMutation(m)}: HTTP ${res.status} ${bytes.toString().slice(0, 200)}`;
          expect(res.status, what).toBeGreaterThanOrEqual(400);
          expect(res.status, what).toBeLessThan(500);
          const body = JSON.parse(bytes.toString()) as { code: string; details?: { type: string }[] };
          expect(body.details?.some((d) => d.type === 'google.rpc.ErrorInfo'), what).toBe(true);
          return { ok: false, reason: `connect:${body.code}` };
        });
        // gRPC-Web: HTTP 200, the status in the trailer frame at the end of the body.
        await invariant(tally, async () => {
          const res = await post('application/grpc-web+proto', grpcFrame(mutateBytes(valid(), m)));
          const bytes = Buffer.from(await res.arrayBuffer());
          let trailer: Headers | undefined;
          for (let at = 0; at + 5 <= bytes.length; ) {
            const length = bytes.readUInt32BE(at + 1);
            if (bytes[at] === 0x80) trailer = trailerParse(bytes.subarray(at + 5, at + 5 + length));
            at += 5 + length;
          }
          const what = `gRPC-Web ${describeMutation(m)}: HTTP ${res.status} ${[...(trailer ?? [])].join(' ').slice(0, 200)}`;
          expect(res.status, what).toBe(200);
          const status = Number(trailer?.get('grpc-status'));
          if (status === 0) return { ok: true, reason: 'OK' };
          expect([Code.Internal, Code.Unknown], what).not.toContain(status);
          expect(trailer?.get('grpc-status-details-bin'), what).toBeTruthy();
          return { ok: false, reason: `grpc-web:${Code[status]}` };
        });
      }),
      { numRuns: RUNS.web },
    );
    console.log(`[fuzz] AddOIDCApp Connect + gRPC-Web binary: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(2 * RUNS.web);
  }, FUZZ_TIMEOUT_MS);

  it(`URIs and origins: ${RUNS.uris} hostile redirect URIs, post-logout URIs and origins (REST and gRPC)`, async () => {
    const client = kh.client(ManagementService, 'grpc');
    const tally = new Tally();
    const FIELDS = ['redirectUris[0]', 'postLogoutRedirectUris[0]', 'additionalOrigins[0]'];
    const orValid = (hostile: fc.Arbitrary<string>, valid: string) => fc.oneof(hostile, fc.constant(valid));
    const input = labelled(
      // Each field hostile half of the time (else a plain valid value), so accepted cases are not rare.
      fc.record({ redirect: orValid(hostileUri, 'https://a.example/cb'), postLogout: orValid(hostileUri, 'myapp://bye'), origin: orValid(hostileOrigin, 'https://a.example'), appType: fc.constantFrom('OIDC_APP_TYPE_WEB', 'OIDC_APP_TYPE_USER_AGENT', 'OIDC_APP_TYPE_NATIVE'), grpc: fc.boolean() }),
      (r) => JSON.stringify(r),
    );
    await fc.assert(
      fc.asyncProperty(input, async (r) => {
        const body = { name: uniqueName(), appType: r.appType, authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', redirectUris: [r.redirect], postLogoutRedirectUris: [r.postLogout], additionalOrigins: [r.origin] };
        let appId: string | undefined;
        await invariant(tally, async () => {
          if (r.grpc) {
            try {
              appId = (await client.addOIDCApp({ projectId, ...body, appType: ['OIDC_APP_TYPE_WEB', 'OIDC_APP_TYPE_USER_AGENT', 'OIDC_APP_TYPE_NATIVE'].indexOf(r.appType), authMethodType: 2 })).appId;
              return { ok: true, reason: 'OK' };
            } catch (e) {
              const { reason } = assertRpcError(e, 'URIs over gRPC');
              const fields = ConnectError.from(e).findDetails(BadRequestSchema)[0]?.fieldViolations.map((v) => v.field) ?? [];
              expect(reason).toBe('INVALID_REQUEST');
              expect(fields.length).toBeGreaterThan(0);
              for (const f of fields) expect(FIELDS, f).toContain(f);
              return { ok: false, reason: `grpc:${reason}` };
            }
          }
          const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, body);
          if (res.status === 200) {
            appId = res.body.appId;
            return { ok: true, reason: 'OK' };
          }
          const { reason } = assertRestStatus(res.status, res.body, 'URIs over REST');
          expect(reason).toBe('INVALID_REQUEST');
          expect(restFields(res.body).length).toBeGreaterThan(0);
          for (const f of restFields(res.body)) expect(FIELDS, f).toContain(f);
          return { ok: false, reason: `rest:${reason}` };
        });
        if (!appId) return;
        // Accepted: what is stored is what a browser reads, and reads the same as the text that was sent.
        const stored = (await kh.rest('GET', `/management/v1/projects/${projectId}/apps/${appId}`)).body.app.oidcConfig;
        expect(redirectUriAmbiguity(r.redirect, stored.redirectUris[0]), `${r.redirect} → ${stored.redirectUris[0]}`).toBeUndefined();
        expect(redirectUriAmbiguity(r.postLogout, stored.postLogoutRedirectUris[0]), `${r.postLogout} → ${stored.postLogoutRedirectUris[0]}`).toBeUndefined();
        expect(originAmbiguity(r.origin, stored.additionalOrigins[0]), `${r.origin} → ${stored.additionalOrigins[0]}`).toBeUndefined();
      }),
      { numRuns: RUNS.uris },
    );
    console.log(`[fuzz] AddOIDCApp URIs and origins: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(RUNS.uris);
    // Both sides of the property ran: some accepted, some refused.
    expect(String(tally)).toMatch(/OK/);
    expect(String(tally)).toMatch(/INVALID_REQUEST/);
  }, FUZZ_TIMEOUT_MS);

  it(`names: ${RUNS.names} hostile app names and usernames; look-alike spellings of an accepted one never pass`, async () => {
    const mgmt = kh.client(ManagementService, 'grpc');
    const tally = new Tally();
    const appPath = `/management/v1/projects/${projectId}/apps/oidc`;
    const addApp = (name: string) => kh.rest('POST', appPath, { name, redirectUris: ['https://a.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' });
    const addMachine = async (userName: string): Promise<{ ok: true; userId: string } | { ok: false; reason: string; fields: string[] }> => {
      try {
        return { ok: true, userId: (await mgmt.addMachineUser({ userName, name: 'Fuzz' })).userId };
      } catch (e) {
        const { reason } = assertRpcError(e, `username ${JSON.stringify(userName)}`);
        return { ok: false, reason, fields: ConnectError.from(e).findDetails(BadRequestSchema)[0]?.fieldViolations.map((v) => v.field) ?? [] };
      }
    };
    // Spellings a person cannot tell apart from the name: each must be refused (409, or 400 when itself invalid).
    const lookAlikes = (name: string) => [...new Set([name.normalize('NFD'), name.normalize('NFC'), fullWidth(name), ` ${name}\u3000`])];
    await fc.assert(
      fc.asyncProperty(labelled(fc.record({ name: hostileName }), (r) => JSON.stringify(r.name)), async ({ name }) => {
        // An app name (display-name rules).
        let appAccepted = false;
        await invariant(tally, async () => {
          const res = await addApp(name);
          if (res.status === 200) return { ok: (appAccepted = true), reason: 'app OK' };
          const { reason } = assertRestStatus(res.status, res.body, `app name ${JSON.stringify(name)}`);
          // Half a surrogate pair cannot even be read as JSON text (strict reader): refused before validation, naming the field.
          if (reason === 'INVALID_REQUEST' || reason === 'JSON_UNPAIRED_SURROGATE') expect(restFields(res.body)).toEqual(['name']);
          else expect(reason).toBe('APP_NAME_TAKEN');
          return { ok: false, reason: `app ${reason}` };
        });
        if (appAccepted) {
          const stored = (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, { query: { limit: 1000 } })).body.result.find((a: { name: string }) => a.name === name.trim().normalize('NFC'));
          expect(stored, `stored app for ${JSON.stringify(name)}`).toBeDefined();
          expect(displayNameDefect(stored.name), JSON.stringify(stored.name)).toBeUndefined();
          for (const variant of [...lookAlikes(name), name.toUpperCase(), name.toLowerCase()]) {
            const res = await addApp(variant);
            expect(res.status, `${JSON.stringify(variant)} after ${JSON.stringify(name)}`).not.toBe(200);
            if (res.status === 409) tally.add('app look-alike 409');
          }
        }
        // A username (RFC 8265 UsernameCaseMapped).
        const before = await eventCount(kh);
        const user = await addMachine(name);
        expect((await eventCount(kh)) - before).toBe(user.ok ? 1 : 0);
        if (!user.ok) {
          if (user.reason === 'INVALID_REQUEST') expect(user.fields).toEqual(['userName']);
          else expect(user.reason).toBe('USERNAME_TAKEN');
          tally.add(`username ${user.reason}`);
          return;
        }
        tally.add('username OK');
        const stored = (await kh.rest('GET', `/v2/users/${user.userId}`)).body.user.username as string;
        expect(usernameDefect(stored), JSON.stringify(stored)).toBeUndefined();
        for (const variant of [...lookAlikes(name), name.toLowerCase()]) {
          const again = await addMachine(variant);
          expect(again.ok, `${JSON.stringify(variant)} after ${JSON.stringify(name)}`).toBe(false);
          if (!again.ok && again.reason === 'USERNAME_TAKEN') tally.add('username look-alike 409');
        }
      }),
      { numRuns: RUNS.names },
    );
    console.log(`[fuzz] names: ${tally.total} cases — ${tally}`);
    expect(String(tally)).toMatch(/app OK/);
    expect(String(tally)).toMatch(/username OK/);
    expect(String(tally)).toMatch(/look-alike 409/);
  }, FUZZ_TIMEOUT_MS);

  it('a bodiless refusal from the Connect router (wrong content type) still answers a Status', async () => {
    const res = await fetch(`http://127.0.0.1:${kh.port}${PATH}`, { method: 'POST', headers: { authorization: `Bearer ${kh.adminToken}`, 'content-type': 'text/plain' }, body: 'hello' });
    const body = await res.json();
    expect(assertRestStatus(res.status, body, 'text/plain').reason).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
