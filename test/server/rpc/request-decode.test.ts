// A request with a google.protobuf.Struct field decodes to what protobuf-es's
// own fromBinary gives — the same message, or the same refusal — whether the
// shortcut reads the Struct or hands the bytes to the library. Compared with
// node:assert's deepStrictEqual (Object.is on every leaf, prototypes, own keys)
// and the order of every object's own keys (vitest's toStrictEqual would also
// compare a "constructor" property, here a key of the JSON).
import { deepStrictEqual } from 'node:assert/strict';
import { create, fromBinary, toBinary, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { VerifyU2FRegistrationRequestSchema } from '../../../gen/keyhold/user/v2/user_pb.js';
import { AddOIDCAppRequestSchema } from '../../../gen/keyhold/management/v1/management_pb.js';
import { EventSchema } from '../../../gen/keyhold/admin/v1/admin_pb.js';
import { VerifyPasskeyRegistrationRequestSchema } from '../../../gen/keyhold/user/v2/passkey_pb.js';
import { decodeRequest, readsStructsDirectly } from '../../../src/server/rpc/request-decode.js';

const schema = VerifyU2FRegistrationRequestSchema;

/** The same value, and the same own keys in the same order at every depth. */
function same(actual: unknown, expected: unknown): void {
  deepStrictEqual(actual, expected);
  const keys = (v: unknown, at: string): string[] =>
    v !== null && typeof v === 'object' && !ArrayBuffer.isView(v)
      ? [`${at}: ${Reflect.ownKeys(v).map(String).join(',')}`, ...Reflect.ownKeys(v).flatMap((k) => keys((v as Record<PropertyKey, unknown>)[k], `${at}.${String(k)}`))]
      : [];
  deepStrictEqual(keys(actual, ''), keys(expected, ''));
}

/** What the library makes of the bytes: its message, or its error's text. */
function library(bytes: Uint8Array): unknown {
  try {
    return fromBinary(schema, bytes);
  } catch (e) {
    return { refused: (e as Error).message };
  }
}
function decoded(bytes: Uint8Array): unknown {
  try {
    return decodeRequest(schema, bytes);
  } catch (e) {
    return { refused: (e as Error).message };
  }
}

/** A small seeded generator (xorshift32): every run sees the same inputs. */
function random(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

const KEYS = ['id', 'rawId', 'type', 'response', 'clientDataJSON', 'attestationObject', 'transports', '0', '17', 'constructor', 'toString', '', 'ü', 'a b'];
const STRINGS = ['', 'public-key', 'o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUc', 'x'.repeat(3000), 'é', '\uFEFFbom', '日本', 'line\nbreak', '\u0000'];
const NUMBERS = [0, -0, 1, -1.5, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity, NaN];

function jsonValue(r: ReturnType<typeof random>, depth: number): JsonValue {
  const kind = r.int(depth > 4 ? 4 : 6);
  if (kind === 0) return null;
  if (kind === 1) return r.pick(NUMBERS);
  if (kind === 2) return r.pick(STRINGS);
  if (kind === 3) return r.next() < 0.5;
  if (kind === 4) return jsonObject(r, depth + 1);
  return Array.from({ length: r.int(4) }, () => jsonValue(r, depth + 1));
}
function jsonObject(r: ReturnType<typeof random>, depth: number): JsonObject {
  const json: JsonObject = {};
  for (let n = r.int(5); n > 0; n--) json[r.pick(KEYS)] = jsonValue(r, depth);
  return json;
}

const request = (publicKeyCredential: JsonObject | undefined) =>
  toBinary(schema, create(schema, { userId: '311', u2fId: '312', tokenName: 'key', publicKeyCredential }));

// Hand-made wire bytes, for encodings toBinary never writes.
const varint = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...varint(n >>> 7)]);
const len = (field: number, bytes: number[]): number[] => [(field << 3) | 2, ...varint(bytes.length), ...bytes];
const ascii = (text: string) => [...Buffer.from(text, 'utf8')];
const entry = (key: number[] | undefined, value: number[] | undefined) => len(1, [...(key ? len(1, key) : []), ...(value ? len(2, value) : [])]);
const stringValue = (text: string) => len(3, ascii(text));
const credential = (...entries: number[][]) => new Uint8Array(len(3, entries.flat()));

describe('a request with a Struct field', () => {
  it('decodes a WebAuthn credential as the library does, through the shortcut', () => {
    const bytes = request({
      id: 'o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUc',
      rawId: 'o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUc',
      type: 'public-key',
      response: { clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0', attestationObject: 'o2NmbXRkbm9uZQ', transports: ['usb', 'nfc'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    });
    expect(readsStructsDirectly(schema, bytes)).toBe(true);
    same(decodeRequest(schema, bytes), fromBinary(schema, bytes));
  });

  it("reads a passkey registration's credential through the shortcut too", () => {
    const passkey = VerifyPasskeyRegistrationRequestSchema;
    const bytes = toBinary(passkey, create(passkey, { userId: '311', passkeyId: '313', passkeyName: 'laptop', publicKeyCredential: { id: 'AQID', type: 'public-key' } }));
    expect(readsStructsDirectly(passkey, bytes)).toBe(true);
    same(decodeRequest(passkey, bytes), fromBinary(passkey, bytes));
  });

  it('decodes 2,000 generated Structs as the library does', () => {
    const r = random(7);
    let direct = 0;
    for (let i = 0; i < 2_000; i++) {
      const bytes = request(jsonObject(r, 0));
      if (readsStructsDirectly(schema, bytes)) direct++;
      same(decoded(bytes), library(bytes));
    }
    // Most carry a non-ASCII string somewhere; the rest are read by the shortcut.
    expect(direct).toBeGreaterThan(200);
  });

  it('gives the library answer, or its refusal, for 20,000 damaged requests', () => {
    const r = random(11);
    for (let i = 0; i < 20_000; i++) {
      const bytes = [...request(jsonObject(r, 0))];
      const damage = r.int(4);
      const at = r.int(bytes.length);
      if (damage === 0) bytes[at] = r.int(256);
      else if (damage === 1) bytes.splice(at, 1);
      else if (damage === 2) bytes.splice(at, 0, r.int(256));
      else bytes.length = at;
      // As the listener hands them over (a Buffer) and as a Uint8Array.
      const damaged = i % 2 ? Buffer.from(bytes) : new Uint8Array(bytes);
      same(decoded(damaged), library(damaged));
    }
  });

  it.each([
    ['the Struct field twice (merged)', [...credential(entry(ascii('a'), stringValue('1'))), ...credential(entry(ascii('b'), stringValue('2')))]],
    ['one key twice (the last wins)', [...credential(entry(ascii('a'), stringValue('1')), entry(ascii('a'), stringValue('2')))]],
    ['a key named __proto__', [...credential(entry(ascii('__proto__'), stringValue('x')), entry(ascii('b'), stringValue('y')))]],
    ['an entry with no key', [...credential(entry(undefined, stringValue('1')))]],
    ['an entry with no value', [...credential(entry(ascii('a'), undefined))]],
    ['an entry with its value first', [...len(3, len(1, [...len(2, stringValue('1')), ...len(1, ascii('a'))]))]],
    ['an entry with its key twice', [...len(3, len(1, [...len(1, ascii('a')), ...len(1, ascii('b')), ...len(2, stringValue('1'))]))]],
    ['a Value with two kinds', [...credential(entry(ascii('a'), [...stringValue('1'), 0x20, 0x01]))]],
    ['a Value with no kind', [...credential(entry(ascii('a'), []))]],
    ['an unknown field in an entry', [...len(3, len(1, [...len(1, ascii('a')), ...len(2, stringValue('1')), 0x18, 0x01]))]],
    ['an unknown field in the Struct', [...len(3, [0x10, 0x01, ...entry(ascii('a'), stringValue('1'))])]],
    ['a null value', [...credential(entry(ascii('a'), [0x08, 0x00]))]],
    ['a bool written in ten bytes', [...credential(entry(ascii('a'), [0x20, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]))]],
    ['a string with a byte-order mark', [...credential(entry(ascii('a'), stringValue('\uFEFFx')))]],
    ['a string that is not UTF-8', [...credential(entry(ascii('a'), len(3, [0xc3, 0x28])))]],
    ['a length past the end', [...len(3, [0x0a, 0x7f, 0x0a, 0x01])]],
    ['the Struct field with a varint wire type', [0x18, 0x01]],
    ['the user id after the Struct', [...credential(entry(ascii('a'), stringValue('1'))), ...len(1, ascii('311'))]],
    ['an unknown top-level field', [0xa0, 0x06, 0x01, ...credential(entry(ascii('a'), stringValue('1')))]],
    ['a group at the top level', [0xa3, 0x06, 0xa4, 0x06, ...credential(entry(ascii('a'), stringValue('1')))]],
    ['an unknown field after the Struct', [...credential(), 0x28, 0x01]],
    ['the user id as a varint, the Struct after it', [0x08, 0x02, ...credential(), ...len(1, [])]],
    ['the user id as a varint whose length swallows the Struct', [0x08, 0x05, ...credential(), 0x22, 0x03, 0x41, 0x41, 0x41]],
    ['the user id as a fixed64', [0x09, 1, 2, 3, 4, 5, 6, 7, 8, ...credential(entry(ascii('a'), stringValue('1')))]],
  ])('takes the library answer for %s', (_name, wire) => {
    const bytes = new Uint8Array(wire);
    same(decoded(bytes), library(bytes));
  });

  it('refuses nesting past the library limit with the library refusal', () => {
    let value: number[] = stringValue('deep');
    for (let i = 0; i < 60; i++) value = len(5, entry(ascii('n'), value)); // Struct in Value in Struct…
    const bytes = new Uint8Array(credential(entry(ascii('top'), value)));
    const answer = library(bytes);
    expect(answer).toHaveProperty('refused', expect.stringContaining('maximum recursion depth'));
    same(decoded(bytes), answer);
  });

  it('leaves a request type without a Struct to the library', () => {
    const other = AddOIDCAppRequestSchema;
    const bytes = toBinary(other, create(other, { projectId: '1', name: 'app', redirectUris: ['https://app.example/cb'] }));
    expect(readsStructsDirectly(other, bytes)).toBe(false);
    same(decodeRequest(other, bytes), fromBinary(other, bytes));
  });

  it('leaves a type with another message field to the library (the order of its keys is the wire order)', () => {
    const bytes = toBinary(EventSchema, create(EventSchema, { payload: { a: '1' }, sequence: 3n, type: 'user.added' }));
    expect(readsStructsDirectly(EventSchema, bytes)).toBe(false);
    same(decodeRequest(EventSchema, bytes), fromBinary(EventSchema, bytes));
  });
});
