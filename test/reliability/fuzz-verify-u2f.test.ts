// Hostile input against VerifyU2FRegistration over REST, gRPC (typed messages
// through connect-node's gRPC transport) and raw HTTP/2 gRPC frames: random and
// wrong-typed bodies, and real WebAuthn registration responses from the software
// authenticator with bytes flipped in the CBOR attestation object, clientDataJSON,
// authenticator data and signatures, truncations, re-encodings and structural
// edits. Invariants for every case: never a 5xx / INTERNAL / UNKNOWN, always a
// google.rpc.Status with an ErrorInfo, and a rejected request appends no event
// (an accepted one exactly one: u2f.verified).
import type http2 from 'node:http2';
import { create, toBinary, type JsonObject } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService, VerifyU2FRegistrationRequestSchema } from '../../gen/keyhold/user/v2/user_pb.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { createSoftAuthenticator, type CborValue, type MakeRegistrationOptions, type SoftAlgorithm, type SoftAuthenticator } from '../support/soft-authenticator.js';
import { plainUser, startRegistration } from '../support/u2f.js';
import {
  byteMutation,
  deepStructBytes,
  describeMutation,
  hostileRestBody,
  hostileValueText,
  lenField,
  mutateBytes,
  type ByteMutation,
  type RawBody,
  postRaw,
} from './hostile.js';
import { assertRawGrpcError, assertRestStatus, assertRpcError, eventCount, grpcFrame, h2Session, labelled, rawGrpc, Tally } from './support.js';

// Generous: the suite runs files in parallel on small machines; alone each test takes seconds.
const FUZZ_TIMEOUT_MS = 180_000;
// Cases per run: each run draws new ones (fast-check's seed differs), so the suite's runs add up.
const RUNS = { restBodies: 100, restCredentials: 150, grpc: 100, raw: 100 };
const ORIGIN = 'https://login.example';
const PATH = '/keyhold.user.v2.UserService/VerifyU2FRegistration';

let kh: TestKeyhold;
let user: { userId: string; token: string };
let session: http2.ClientHttp2Session;
let rsaKey: SoftAuthenticator;

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN } });
  user = await plainUser(kh);
  rsaKey = createSoftAuthenticator({ alg: -257 });
});
afterAll(async () => {
  // Server-side failures are logged at error level: show them when a case went wrong.
  const errors = kh?.logLines.filter((l) => /"level":(50|60)/.test(l)) ?? [];
  if (errors.length) console.log(`[fuzz] server error log lines:\n${errors.map((l) => l.slice(0, 2000)).join('\n')}`);
  session?.close();
  await kh?.close();
});

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const unb64u = (s: string) => Uint8Array.from(Buffer.from(s, 'base64url'));

/** A fresh pending registration of the test user. */
async function registration() {
  return startRegistration(kh, user.userId, user.token);
}

// ---------------------------------------------------------------------------
// Credential mutations: each makes a credential for a registration, as JSON text.

interface CredentialCase {
  label: string;
  alg: SoftAlgorithm;
  fmt: 'none' | 'packed';
  /** Options for the software authenticator (tamper hooks sign over the change where that matters). */
  options?: Partial<MakeRegistrationOptions>;
  /** Edits the finished JSON; may return replacement text (for nesting deeper than JSON.stringify goes). */
  edit?: (json: Record<string, any>) => string | void;
}

const MEMBERS = ['id', 'rawId', 'type', 'response', 'response.clientDataJSON', 'response.attestationObject', 'response.transports', 'authenticatorAttachment', 'clientExtensionResults'] as const;

function setPath(obj: Record<string, any>, path: string, value: unknown | undefined): void {
  const parts = path.split('.');
  let target: any = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof target[p] !== 'object' || target[p] === null) target[p] = {};
    target = target[p];
  }
  const last = parts[parts.length - 1];
  if (value === undefined) delete target[last];
  else target[last] = value;
}

const PLACEHOLDER = '"__keyhold_fuzz_placeholder__"';

const bytesMember = fc.constantFrom('response.clientDataJSON', 'response.attestationObject', 'id', 'rawId');
const algFmt = fc.constantFrom<[SoftAlgorithm, 'none' | 'packed']>([-7, 'packed'], [-7, 'none'], [-8, 'packed'], [-257, 'packed'], [-35, 'packed'], [-8, 'none']);

const cborValue: fc.Arbitrary<CborValue> = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
  fc.string({ maxLength: 20 }),
  fc.boolean(),
  fc.constant(null),
  fc.uint8Array({ maxLength: 64 }),
  fc.array(fc.integer({ min: -300, max: 300 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer({ min: -10, max: 10 }), { maxKeys: 3 }),
);

const credentialCase: fc.Arbitrary<CredentialCase> = labelled(
  fc.oneof(
    // Byte flips, truncations and insertions in the encoded members.
    {
      weight: 5,
      arbitrary: fc.tuple(algFmt, bytesMember, byteMutation).map(([[alg, fmt], member, m]): CredentialCase => ({
        label: `${alg}/${fmt} ${member} ${describeMutation(m)}`,
        alg,
        fmt,
        edit: (json) => {
          const parts = member.split('.');
          const holder = parts.length === 2 ? json.response : json;
          const key = parts[parts.length - 1];
          holder[key] = b64u(mutateBytes(unb64u(holder[key]), m));
        },
      })),
    },
    // Authenticator data changed before signing: a valid signature over wrong data.
    {
      weight: 3,
      arbitrary: fc.tuple(algFmt, byteMutation).map(([[alg, fmt], m]): CredentialCase => ({
        label: `${alg}/${fmt} authData ${describeMutation(m)} (signed)`,
        alg,
        fmt,
        options: { tamper: { authData: (a) => mutateBytes(a, m) } },
      })),
    },
    // The signature itself flipped or truncated.
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom<SoftAlgorithm>(-7, -8, -257, -35), byteMutation).map(([alg, m]): CredentialCase => ({
        label: `${alg}/packed signature ${describeMutation(m)}`,
        alg,
        fmt: 'packed',
        options: { tamper: { signature: (s) => mutateBytes(s, m) } },
      })),
    },
    // clientDataJSON text rewritten before signing.
    {
      weight: 3,
      arbitrary: fc
        .tuple(algFmt, fc.constantFrom('type', 'challenge', 'origin', 'crossOrigin', 'topOrigin', 'tokenBinding', '__proto__'), hostileValueText.filter((t) => t.length < 300_000))
        .map(([[alg, fmt], field, value]): CredentialCase => ({
          label: `${alg}/${fmt} clientData.${field} = ${value.slice(0, 40)}${value.length > 40 ? `…(${value.length})` : ''}`,
          alg,
          fmt,
          options: {
            tamper: {
              clientDataJSON: (text) => {
                const obj = JSON.parse(text) as Record<string, unknown>;
                obj[field] = '__slot__';
                return JSON.stringify(obj).replace('"__slot__"', value);
              },
            },
          },
        })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(algFmt, fc.uint8Array({ maxLength: 200 })).map(([[alg, fmt], bytes]): CredentialCase => ({
        label: `${alg}/${fmt} clientDataJSON random bytes (${bytes.length})`,
        alg,
        fmt,
        edit: (json) => {
          json.response.clientDataJSON = b64u(bytes);
        },
      })),
    },
    // Structural CBOR edits of the attestation object.
    {
      weight: 3,
      arbitrary: fc.tuple(algFmt, fc.constantFrom('fmt', 'attStmt', 'authData', 'attStmt.alg', 'attStmt.sig', 'attStmt.x5c', 'extra'), fc.option(cborValue, { nil: undefined })).map(
        ([[alg, fmt], key, value]): CredentialCase => ({
          label: `${alg}/${fmt} attestationObject.${key} = ${value === undefined ? '(deleted)' : typeof value}`,
          alg,
          fmt,
          options: {
            tamper: {
              attestationObject: (ao) => {
                if (key.startsWith('attStmt.')) {
                  const stmt = ao.get('attStmt');
                  const map = stmt instanceof Map ? stmt : new Map<CborValue, CborValue>();
                  if (value === undefined) map.delete(key.slice(8));
                  else map.set(key.slice(8), key === 'attStmt.x5c' ? [value] : value);
                  ao.set('attStmt', map);
                } else if (value === undefined) ao.delete(key);
                else ao.set(key, value);
              },
            },
          },
        }),
      ),
    },
    // JSON members replaced by hostile values or removed.
    {
      weight: 4,
      arbitrary: fc
        .tuple(algFmt, fc.constantFrom(...MEMBERS), fc.oneof({ weight: 5, arbitrary: hostileValueText.filter((t) => t.length < 600_000) }, { weight: 1, arbitrary: fc.constant('') }))
        .map(([[alg, fmt], member, text]): CredentialCase => ({
          label: `${alg}/${fmt} ${member} = ${text === '' ? '(deleted)' : `${text.slice(0, 40)}${text.length > 40 ? `…(${text.length})` : ''}`}`,
          alg,
          fmt,
          edit: (json) => {
            if (text === '') {
              setPath(json, member, undefined);
              return;
            }
            setPath(json, member, JSON.parse(PLACEHOLDER));
            return JSON.stringify(json).replace(PLACEHOLDER, text);
          },
        })),
    },
    // Re-encodings: standard base64, padding, whitespace, hex.
    {
      weight: 2,
      arbitrary: fc.tuple(algFmt, bytesMember, fc.constantFrom('base64', 'padded', 'spaces', 'hex', 'upper')).map(([[alg, fmt], member, how]): CredentialCase => ({
        label: `${alg}/${fmt} ${member} as ${how}`,
        alg,
        fmt,
        edit: (json) => {
          const parts = member.split('.');
          const holder = parts.length === 2 ? json.response : json;
          const key = parts[parts.length - 1];
          const bytes = Buffer.from(unb64u(holder[key]));
          holder[key] =
            how === 'base64' ? bytes.toString('base64').replace(/=+$/, '') + (bytes.length % 3 ? '' : '+/')
            : how === 'padded' ? bytes.toString('base64url') + '=='
            : how === 'spaces' ? ` ${bytes.toString('base64url').replace(/(.{8})/g, '$1 ')}\n`
            : how === 'hex' ? bytes.toString('hex')
            : bytes.toString('base64url').toUpperCase();
        },
      })),
    },
    // Other flags and ceremonies, unmutated bytes.
    {
      weight: 1,
      arbitrary: fc
        .record({ up: fc.boolean(), uv: fc.boolean(), be: fc.boolean(), bs: fc.boolean(), at: fc.boolean(), ed: fc.boolean() })
        .chain((flags) => algFmt.map(([alg, fmt]): CredentialCase => ({ label: `${alg}/${fmt} flags ${JSON.stringify(flags)}`, alg, fmt, options: { flags } }))),
    },
  ),
  (c) => c.label,
);

/** The credential JSON text for `reg`, mutated as the case says. */
function credentialText(c: CredentialCase, reg: { challenge: string; rpId: string }): string {
  const key = c.alg === -257 ? rsaKey : createSoftAuthenticator({ alg: c.alg });
  const json = key.makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId, fmt: c.fmt, ...c.options }) as unknown as Record<string, any>;
  return c.edit?.(json) ?? JSON.stringify(json);
}

// ---------------------------------------------------------------------------

function restVerify(userId: string, u2fId: string, body: RawBody) {
  return postRaw(`http://127.0.0.1:${kh.port}/v2/users/${userId}/u2f/${u2fId}`, user.token, body);
}

/** Whether the user has a ready key yet: the first one verified also writes its recovery codes. */
let hasKey = false;

async function invariant(tally: Tally, run: () => Promise<{ ok: boolean; reason: string }>) {
  const before = await eventCount(kh);
  const { ok, reason } = await run();
  const after = await eventCount(kh);
  expect(after - before, `events after ${reason}`).toBe(ok ? (hasKey ? 1 : 2) : 0);
  if (ok) hasKey = true;
  tally.add(reason);
}

describe('VerifyU2FRegistration under hostile input', () => {
  it(`REST: ${RUNS.restBodies} generated bodies`, async () => {
    const tally = new Tally();
    const reg = await registration();
    // A real credential, but for another challenge: intact, it fails CHALLENGE_MISMATCH.
    const other = createSoftAuthenticator().makeRegistration({ challenge: b64u(new Uint8Array(32).fill(7)), origin: ORIGIN, rpId: reg.rpId });
    const bodies = labelled(
      hostileRestBody(['userId', 'u2fId', 'publicKeyCredential', 'tokenName'], () => ({ publicKeyCredential: other, tokenName: 'fuzz key' })),
      (b) => `${b.label} (${b.bytes.length} bytes)`,
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        await invariant(tally, async () => {
          const res = await restVerify(user.userId, reg.u2fId, body);
          if (res.status === 200) return { ok: true, reason: 'OK' };
          return { ok: false, reason: assertRestStatus(res.status, res.body, body.label).reason };
        });
      }),
      { numRuns: RUNS.restBodies },
    );
    console.log(`[fuzz] VerifyU2FRegistration REST bodies: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(RUNS.restBodies);
  }, FUZZ_TIMEOUT_MS);

  it(`REST: ${RUNS.restCredentials} mutated real credentials`, async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(credentialCase, async (c) => {
        const reg = await registration();
        const text = `{"tokenName":"fuzz key","publicKeyCredential":${credentialText(c, reg)}}`;
        await invariant(tally, async () => {
          const res = await restVerify(user.userId, reg.u2fId, { label: c.label, bytes: new TextEncoder().encode(text), contentType: 'application/json' });
          if (res.status === 200) return { ok: true, reason: 'OK' };
          return { ok: false, reason: assertRestStatus(res.status, res.body, c.label).reason };
        });
      }),
      { numRuns: RUNS.restCredentials },
    );
    console.log(`[fuzz] VerifyU2FRegistration REST credentials: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(RUNS.restCredentials);
    // The mutations reach deep into verification, not only the shape checks.
    expect(tally.counts.get('CREDENTIAL_MALFORMED') ?? 0).toBeGreaterThan(0);
    expect([...tally.counts.keys()].filter((r) => r !== 'CREDENTIAL_MALFORMED' && r !== 'INVALID_REQUEST').length).toBeGreaterThanOrEqual(3);
  }, FUZZ_TIMEOUT_MS);

  it(`gRPC (connect-node, binary): ${RUNS.grpc} mutated credentials and wrong types`, async () => {
    const client = kh.client(UserService, 'grpc', user.token);
    const tally = new Tally();
    let skipped = 0;
    const extra = fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.record({ tokenName: fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('', '   ', 'x'.repeat(201), '\u0000', '\ud800')) }) },
      { weight: 1, arbitrary: fc.record({ u2fId: fc.string({ maxLength: 80 }) }) },
      { weight: 1, arbitrary: fc.record({ userId: fc.string({ maxLength: 80 }) }) },
    );
    await fc.assert(
      fc.asyncProperty(credentialCase, extra, async (c, override) => {
        const reg = await registration();
        let credential: JsonObject;
        try {
          const parsed = JSON.parse(credentialText(c, reg)) as unknown;
          // A Struct holds a JSON object only; anything else is sent as an object holding it.
          credential = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as JsonObject) : { value: parsed as never };
        } catch {
          credential = { unparsable: true };
        }
        const request = { userId: user.userId, u2fId: reg.u2fId, tokenName: 'fuzz key', publicKeyCredential: credential, ...override };
        try {
          // protobuf-es encodes a Struct recursively: nesting past a few hundred levels
          // cannot be sent from this client at all (the raw test sends it hand-encoded).
          toBinary(VerifyU2FRegistrationRequestSchema, create(VerifyU2FRegistrationRequestSchema, request));
        } catch {
          skipped++;
          return;
        }
        await invariant(tally, async () => {
          try {
            await client.verifyU2FRegistration(request);
            return { ok: true, reason: 'OK' };
          } catch (e) {
            return { ok: false, reason: assertRpcError(e, c.label).reason };
          }
        });
      }),
      { numRuns: RUNS.grpc },
    );
    console.log(`[fuzz] VerifyU2FRegistration gRPC: ${tally.total} cases — ${tally} (${skipped} more the client could not encode)`);
    expect(tally.total + skipped).toBeGreaterThanOrEqual(RUNS.grpc);
    expect(skipped).toBeLessThan(RUNS.grpc / 5);
  }, FUZZ_TIMEOUT_MS);

  it(`gRPC raw HTTP/2: ${RUNS.raw} mutated frames, deep Structs and garbage`, async () => {
    // Connected now, not in beforeAll: a connection without a request is closed after the headers timeout.
    session = h2Session(kh.port);
    const tally = new Tally();
    const reg = await registration();
    const cred = createSoftAuthenticator().makeRegistration({ challenge: b64u(new Uint8Array(32).fill(9)), origin: ORIGIN, rpId: reg.rpId });
    const valid = toBinary(
      VerifyU2FRegistrationRequestSchema,
      create(VerifyU2FRegistrationRequestSchema, { userId: user.userId, u2fId: reg.u2fId, tokenName: 'k', publicKeyCredential: cred as unknown as JsonObject }),
    );
    const ids = Uint8Array.from([...lenField(1, Buffer.from(user.userId)), ...lenField(2, Buffer.from(reg.u2fId)), ...lenField(4, Buffer.from('k'))]);
    type Case = { label: string; frame: () => Buffer };
    const cases = labelled(
      fc.oneof(
        { weight: 5, arbitrary: byteMutation.map((m: ByteMutation): Case => ({ label: `message ${describeMutation(m)}`, frame: () => grpcFrame(mutateBytes(valid, m)) })) },
        {
          weight: 2,
          arbitrary: fc.integer({ min: 10, max: 60_000 }).map((depth): Case => ({
            label: `Struct nested ${depth} deep`,
            frame: () => grpcFrame(Uint8Array.from([...ids, ...lenField(3, deepStructBytes(depth))])),
          })),
        },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.constantFrom(1, 2, 4), fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80])).map(([field, bad]): Case => ({
            label: `invalid UTF-8 in field ${field}`,
            frame: () => grpcFrame(Uint8Array.from([...valid, ...lenField(field, [0x61, ...bad])])),
          })),
        },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b): Case => ({ label: 'garbage message', frame: () => grpcFrame(b) })) },
      ),
      (c) => c.label,
    );
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        await invariant(tally, async () => {
          const r = await rawGrpc(session, PATH, c.frame(), { authorization: `Bearer ${user.token}` });
          if (r.grpcStatus === 0) return { ok: true, reason: 'OK' };
          return { ok: false, reason: assertRawGrpcError(r, c.label) };
        });
      }),
      { numRuns: RUNS.raw },
    );
    console.log(`[fuzz] VerifyU2FRegistration raw gRPC: ${tally.total} cases — ${tally}`);
    expect(tally.total).toBeGreaterThanOrEqual(RUNS.raw);
  }, FUZZ_TIMEOUT_MS);

  it('a REST credential nested 100 000 levels deep is a 400, not a crash', async () => {
    const reg = await registration();
    const text = `{"tokenName":"k","publicKeyCredential":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const res = await restVerify(user.userId, reg.u2fId, { label: 'deep', bytes: new TextEncoder().encode(text), contentType: 'application/json' });
    expect(assertRestStatus(res.status, res.body, 'deep').reason).toMatch(/INVALID_REQUEST|MALFORMED_BODY|CREDENTIAL_MALFORMED/);
  }, FUZZ_TIMEOUT_MS);
});
