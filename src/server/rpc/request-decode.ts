// Decodes a gRPC request's bytes into its message, as protobuf-es's
// fromBinary does, with one shortcut: a top-level google.protobuf.Struct field
// (a WebAuthn credential) is read straight into the plain JSON object that
// protobuf-es hands the handler. The library builds a reflective message for
// every Struct, map entry and Value and then converts them: 6.7% of the main
// thread at VerifyU2FRegistration (PostgreSQL, c=64). The measured gain:
// docs/performance.md, "Mechanisms" ("Struct fields decoded directly").
//
// It serves only request types whose other fields are plain scalars (singular,
// implicit presence: the two WebAuthn verifications' ids and names), and takes
// only the plain encoding: every top-level field known and in its own wire
// type, each Struct at most once, every entry at most one key and one value,
// every Value one kind, the Struct's strings ASCII, no "__proto__" key,
// nesting well inside the library's limit. Anything else (an unknown field, a
// Struct twice, a malformed or non-ASCII byte) is decoded by the library
// itself, so the message, its keys' order, and every refusal are the
// library's own.
import { fromBinary, ScalarType, type DescField, type DescMessage, type JsonObject, type JsonValue, type MessageShape } from '@bufbuild/protobuf';

/** Nesting the shortcut takes; protobuf-es refuses at 100 (its recursionLimit). */
const MAX_DEPTH = 64;

/** Thrown inside the shortcut: this input is the library's to decode. */
const NOT_PLAIN = Symbol('not plain');

/** How the shortcut reads a request type: its Struct fields, and the wire type each other field comes in. */
interface Plan {
  structs: ReadonlyMap<number, string>;
  others: ReadonlyMap<number, number>;
}

const NO_SHORTCUT: Plan = { structs: new Map(), others: new Map() };
const plans = new WeakMap<DescMessage, Plan>();

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** The wire type of each scalar type (protobuf's encoding guide). */
const SCALAR_WIRE_TYPES: Record<ScalarType, number> = {
  [ScalarType.DOUBLE]: FIXED64,
  [ScalarType.FIXED64]: FIXED64,
  [ScalarType.SFIXED64]: FIXED64,
  [ScalarType.FLOAT]: FIXED32,
  [ScalarType.FIXED32]: FIXED32,
  [ScalarType.SFIXED32]: FIXED32,
  [ScalarType.STRING]: LENGTH_DELIMITED,
  [ScalarType.BYTES]: LENGTH_DELIMITED,
  [ScalarType.INT32]: VARINT,
  [ScalarType.INT64]: VARINT,
  [ScalarType.UINT32]: VARINT,
  [ScalarType.UINT64]: VARINT,
  [ScalarType.SINT32]: VARINT,
  [ScalarType.SINT64]: VARINT,
  [ScalarType.BOOL]: VARINT,
};

const isStruct = (f: DescField) =>
  f.fieldKind === 'message' && f.message.typeName === 'google.protobuf.Struct' && !f.oneof && !f.delimitedEncoding;
// A plain scalar: set on a new message (implicit presence, create.js), read as one value of exactly
// the bytes its wire type spans. Lists, maps, messages and oneofs are not: a packed list or a
// message may read past its own length into what follows, which the Struct no longer is.
const plainScalar = (f: DescField): f is DescField & { fieldKind: 'scalar' } => f.fieldKind === 'scalar' && !f.oneof && f.presence === 2; // FeatureSet.FieldPresence.IMPLICIT

function planOf(schema: DescMessage): Plan {
  let plan = plans.get(schema);
  if (!plan) {
    const structs = schema.fields.filter(isStruct);
    const others = schema.fields.filter((f) => !isStruct(f));
    plan =
      structs.length > 0 && others.every(plainScalar)
        ? {
            structs: new Map(structs.map((f) => [f.number, f.localName])),
            others: new Map(others.map((f) => [f.number, SCALAR_WIRE_TYPES[f.scalar]])),
          }
        : NO_SHORTCUT;
    plans.set(schema, plan);
  }
  return plan;
}

/** The request message, as `fromBinary(schema, bytes)` gives it. */
export function decodeRequest<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  const plan = planOf(schema);
  if (plan.structs.size > 0) {
    const decoded = withStructsRead(schema, plan, bytes);
    if (decoded) return decoded;
  }
  return fromBinary(schema, bytes);
}

function withStructsRead<Desc extends DescMessage>(schema: Desc, plan: Plan, bytes: Uint8Array): MessageShape<Desc> | undefined {
  const reader = new Reader(bytes);
  const structs = new Map<string, JsonObject>();
  const rest: Uint8Array[] = [];
  try {
    while (reader.pos < bytes.length) {
      const start = reader.pos;
      const tag = reader.varint(bytes.length);
      const number = tag >>> 3;
      const wireType = tag & 7;
      const struct = plan.structs.get(number);
      if (struct === undefined) {
        if (plan.others.get(number) !== wireType) throw NOT_PLAIN; // unknown, or another wire type than the library reads
        reader.skip(wireType);
        rest.push(bytes.subarray(start, reader.pos));
        continue;
      }
      if (wireType !== LENGTH_DELIMITED || structs.has(struct)) throw NOT_PLAIN;
      structs.set(struct, readStruct(reader, reader.lengthEnd(bytes.length), 2));
    }
  } catch (e) {
    if (e === NOT_PLAIN) return undefined;
    throw e;
  }
  if (structs.size === 0) return undefined;
  let message: Record<string, unknown>;
  try {
    message = fromBinary(schema, joined(bytes, rest)) as Record<string, unknown>;
  } catch {
    return undefined; // refused: the library says why, from the bytes as they came
  }
  for (const [name, json] of structs) message[name] = json;
  return message as MessageShape<Desc>;
}

/** The other fields' bytes in one array of the input's own class (a bytes field keeps it, as the library's does). */
function joined(bytes: Uint8Array, parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  if (Buffer.isBuffer(bytes)) return Buffer.concat(parts);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// google.protobuf.Struct { map<string, Value> fields = 1; }: each entry { string key = 1; Value value = 2; }.
function readStruct(r: Reader, end: number, depth: number): JsonObject {
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  const json: JsonObject = {};
  while (r.pos < end) {
    if (r.varint(end) !== TAG_LEN_1) throw NOT_PLAIN;
    const entryEnd = r.lengthEnd(end);
    let key: string | undefined;
    let value: JsonValue | undefined;
    while (r.pos < entryEnd) {
      const tag = r.varint(entryEnd);
      if (tag === TAG_LEN_1 && key === undefined) key = r.ascii(r.lengthEnd(entryEnd));
      else if (tag === TAG_LEN_2 && value === undefined) value = readValue(r, r.lengthEnd(entryEnd), depth + 1);
      else throw NOT_PLAIN;
    }
    key ??= '';
    if (key === '__proto__') throw NOT_PLAIN;
    json[key] = value ?? null;
  }
  return json;
}

// google.protobuf.Value { oneof kind { NullValue null_value = 1; double number_value = 2;
// string string_value = 3; bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6; } }
function readValue(r: Reader, end: number, depth: number): JsonValue {
  if (r.pos === end) return null;
  let value: JsonValue;
  switch (r.varint(end)) {
    case (1 << 3) | 0:
      r.varint(end);
      value = null;
      break;
    case (2 << 3) | 1:
      value = r.double(end);
      break;
    case TAG_LEN_3:
      value = r.ascii(r.lengthEnd(end));
      break;
    case (4 << 3) | 0:
      value = r.varint(end) !== 0;
      break;
    case TAG_LEN_5:
      value = readStruct(r, r.lengthEnd(end), depth + 1);
      break;
    case TAG_LEN_6:
      value = readList(r, r.lengthEnd(end), depth + 1);
      break;
    default:
      throw NOT_PLAIN;
  }
  if (r.pos !== end) throw NOT_PLAIN; // a second kind: the oneof's last (or merged) one would win
  return value;
}

// google.protobuf.ListValue { repeated Value values = 1; }
function readList(r: Reader, end: number, depth: number): JsonValue[] {
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  const list: JsonValue[] = [];
  while (r.pos < end) {
    if (r.varint(end) !== TAG_LEN_1) throw NOT_PLAIN;
    list.push(readValue(r, r.lengthEnd(end), depth + 1));
  }
  return list;
}

const TAG_LEN_1 = (1 << 3) | 2;
const TAG_LEN_2 = (2 << 3) | 2;
const TAG_LEN_3 = (3 << 3) | 2;
const TAG_LEN_5 = (5 << 3) | 2;
const TAG_LEN_6 = (6 << 3) | 2;

/** The wire format's reads; each refuses (NOT_PLAIN) what would run past the bound it is given. */
class Reader {
  pos = 0;
  // The same bytes as a Buffer (no copy): its little-endian doubles, and its latin1 decoding, which
  // for ASCII is UTF-8's, cheaper than TextDecoder.
  private readonly buffer: Buffer;

  constructor(private readonly bytes: Uint8Array) {
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** A varint of at most 4 bytes (28 bits: every tag and length here); longer ones are the library's. */
  varint(end: number): number {
    let value = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (this.pos >= end) throw NOT_PLAIN;
      const byte = this.bytes[this.pos++]!;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
    throw NOT_PLAIN;
  }

  /** Reads a length; where the bytes it counts end (at most `end`). */
  lengthEnd(end: number): number {
    const length = this.varint(end);
    const at = this.pos + length;
    if (at > end) throw NOT_PLAIN;
    return at;
  }

  double(end: number): number {
    if (this.pos + 8 > end) throw NOT_PLAIN;
    const value = this.buffer.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** The bytes up to `end` as a string of ASCII (any other byte: the library decodes and validates the UTF-8). */
  ascii(end: number): string {
    const bytes = this.bytes;
    for (let i = this.pos; i < end; i++) if (bytes[i]! > 0x7f) throw NOT_PLAIN;
    const text = this.buffer.toString('latin1', this.pos, end);
    this.pos = end;
    return text;
  }

  /** Skips a top-level field that is not a Struct, by its wire type. */
  skip(wireType: number): void {
    const end = this.bytes.length;
    switch (wireType) {
      case 0:
        this.varint64(end);
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.lengthEnd(end);
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        throw NOT_PLAIN; // groups: the library's
    }
    if (this.pos > end) throw NOT_PLAIN;
  }

  private varint64(end: number): void {
    for (let n = 0; n < 10; n++) {
      if (this.pos >= end) throw NOT_PLAIN;
      if (this.bytes[this.pos++]! < 0x80) return;
    }
    throw NOT_PLAIN;
  }
}

/** Whether the shortcut reads these bytes' Struct fields itself (tests: it must, for a plain credential). */
export function readsStructsDirectly(schema: DescMessage, bytes: Uint8Array): boolean {
  const plan = planOf(schema);
  return plan.structs.size > 0 && withStructsRead(schema, plan, bytes) !== undefined;
}
