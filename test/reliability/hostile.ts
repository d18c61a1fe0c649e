// Generators of hostile input for the fuzz tests: JSON *text* (so that nesting
// deeper than JSON.stringify allows, huge literals and invalid UTF-8 can be sent
// as is), raw bodies, protobuf wire bytes, and mutations of real WebAuthn
// registration responses.
import fc from 'fast-check';

const enc = new TextEncoder();

// ---------------------------------------------------------------------------
// JSON text

/** A JSON string literal of one repeated unit (given as JSON text, escapes allowed). */
function repeatedString(unit: string, n: number): string {
  return `"${unit.repeat(n)}"`;
}

/** Strings worth trying: long, unicode, lone surrogates, control characters, markup. */
export const hostileStringText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('""', '"   "', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"<script>alert(1)</script>"', '"%00%ff"', '"\\r\\n"'),
  fc
    .tuple(fc.constantFrom('x', 'é', '🔑', '\\u0000', '\\ud800', ' ', '\\"', 'https://a.example/cb/'), fc.integer({ min: 201, max: 200_000 }))
    .map(([unit, n]) => repeatedString(unit, n)),
);

/** Nesting far deeper than any real client sends (up to 100 000 levels). */
export const deepNestingText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('array', 'object', 'mixed'), fc.integer({ min: 50, max: 100_000 }))
  .map(([kind, depth]) => {
    if (kind === 'array') return '['.repeat(depth) + ']'.repeat(depth);
    if (kind === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    return '{"a":['.repeat(depth) + ']}'.repeat(depth);
  });

/** Lists longer than any bound. */
export const hugeListText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('"https://a.example/cb"', '"OIDC_GRANT_TYPE_IMPLICIT"', '1', 'null', '{}', '"x"', '[]'),
    fc.integer({ min: 101, max: 30_000 }),
  )
  .map(([item, n]) => `[${Array.from({ length: n }, () => item).join(',')}]`);

export const oddNumberText = fc.constantFrom('1e400', '-1e400', '-0', '12345678901234567890', '1.5', '-2147483649', '2147483648', '0.0000001', '9007199254740993');

/** Any JSON value text, from ordinary to hostile. */
export const hostileValueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 3, arbitrary: hostileStringText },
  { weight: 2, arbitrary: hugeListText },
  { weight: 2, arbitrary: deepNestingText },
  { weight: 1, arbitrary: oddNumberText },
  {
    weight: 1,
    arbitrary: fc.constantFrom('"1.5s"', '"-1s"', '"9999999999999999999s"', '"1e3s"', '"s"', '"5.000000001s"', '"OIDC_APP_TYPE_NATIVE"', '"99"', 'true'),
  },
);

/** A JSON object text from (key, value-text) pairs; keys may repeat (last wins in JSON.parse). */
export function objectText(entries: ReadonlyArray<readonly [string, string]>): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

/** Keys that poison naive parsers. */
export const poisonKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', '', ' ', 'toString', 'hasOwnProperty');

export interface RawBody {
  label: string;
  bytes: Uint8Array;
  contentType?: string;
}

/**
 * Whole REST bodies: any JSON, objects over the request's own keys with wrong
 * or hostile values, one hostile field on an otherwise valid body, raw bytes,
 * invalid UTF-8, truncations and wrong content types.
 */
export function hostileRestBody(keys: readonly string[], validBody: () => Record<string, unknown>): fc.Arbitrary<RawBody> {
  const json = (label: string, text: string, contentType = 'application/json'): RawBody => ({ label, bytes: enc.encode(text), contentType });
  const key = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: poisonKeys }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) });
  const validText = () => JSON.stringify(validBody());
  return fc.oneof(
    { weight: 2, arbitrary: fc.json({ maxDepth: 4 }).map((t) => json('any JSON', t)) },
    {
      weight: 4,
      arbitrary: fc.array(fc.tuple(key, hostileValueText), { minLength: 1, maxLength: 6 }).map((e) => json(`keys ${e.map(([k]) => k).join(',')}`, objectText(e))),
    },
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...keys), hostileValueText).map(([k, v]) => {
        const base = Object.entries(validBody())
          .filter(([name]) => name !== k)
          .map(([name, value]) => [name, JSON.stringify(value)] as const);
        return json(`valid but ${k}`, objectText([...base, [k, v]]));
      }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((b) => ({ label: 'random bytes', bytes: b, contentType: 'application/json' })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...keys), fc.uint8Array({ minLength: 1, maxLength: 16 }), fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]))
        .map(([k, noise, bad]) => {
          const head = enc.encode(`{${JSON.stringify(k)}:"`);
          const tail = enc.encode('"}');
          return { label: `invalid UTF-8 in ${k}`, bytes: Uint8Array.from([...head, ...noise, ...bad, ...tail]), contentType: 'application/json' };
        }),
    },
    {
      weight: 1,
      arbitrary: fc.nat().map((n) => {
        const t = validText();
        return json('truncated valid JSON', t.slice(0, n % Math.max(1, t.length)));
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/xml', 'multipart/form-data; boundary=x', undefined)
        .map((ct) => ({ label: `content-type ${ct}`, bytes: enc.encode(validText()), contentType: ct })),
    },
    { weight: 1, arbitrary: fc.constant(json('BOM + valid JSON', '\ufeff' + validText())) },
  );
}

// ---------------------------------------------------------------------------
// Protobuf wire bytes

export function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** A length-delimited field (wire type 2). */
export function lenField(fieldNo: number, bytes: Uint8Array | number[]): Uint8Array {
  return Uint8Array.from([...varint((fieldNo << 3) | 2), ...varint(bytes.length), ...bytes]);
}

/**
 * A google.protobuf.Struct nested `depth` times ({"a": {"a": …}}), built in
 * O(depth) without recursion, so no encoder limits how deep it goes.
 */
export function deepStructBytes(depth: number): Uint8Array {
  // From inside out, each level is: Struct.fields(1) → entry{ key(1)="a", value(2)=Value{ struct_value(5)=<inner> } }.
  const prefixes: number[][] = [];
  let innerLength = 0;
  for (let i = 0; i < depth; i++) {
    const valuePrefix = [...varint((5 << 3) | 2), ...varint(innerLength)];
    const valueLength = valuePrefix.length + innerLength;
    const entryBody = [...varint((1 << 3) | 2), 1, 0x61, ...varint((2 << 3) | 2), ...varint(valueLength)];
    const entryLength = entryBody.length + valueLength;
    const structPrefix = [...varint((1 << 3) | 2), ...varint(entryLength)];
    prefixes.push([...structPrefix, ...entryBody, ...valuePrefix]);
    innerLength = structPrefix.length + entryLength;
  }
  const out = new Uint8Array(innerLength);
  let offset = 0;
  for (let i = prefixes.length - 1; i >= 0; i--) {
    out.set(prefixes[i], offset);
    offset += prefixes[i].length;
  }
  return out;
}

export type ByteMutation =
  | { kind: 'flip'; at: number[]; xor: number }
  | { kind: 'truncate'; keep: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'random'; bytes: Uint8Array };

export const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), xor: fc.integer({ min: 1, max: 255 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 256 }) }) },
);

export function mutateBytes(input: Uint8Array, m: ByteMutation): Uint8Array {
  const out = Uint8Array.from(input);
  switch (m.kind) {
    case 'flip':
      if (out.length) for (const at of m.at) out[at % out.length] ^= m.xor;
      return out;
    case 'truncate':
      return out.subarray(0, m.keep % Math.max(1, out.length));
    case 'insert': {
      const at = m.at % (out.length + 1);
      return Uint8Array.from([...out.subarray(0, at), ...m.bytes, ...out.subarray(at)]);
    }
    case 'random':
      return m.bytes;
  }
}

export function describeMutation(m: ByteMutation): string {
  return m.kind === 'flip' ? `flip@${m.at.join('/')}^${m.xor}` : m.kind === 'truncate' ? `truncate→${m.keep}` : m.kind === 'insert' ? `insert@${m.at}` : `random(${m.bytes.length})`;
}

/** POSTs raw bytes (with the body's own content type, if any) and parses the answer as JSON when it is. */
export async function postRaw(url: string, token: string, body: RawBody): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body.contentType ? { 'content-type': body.contentType } : {}) },
    body: Buffer.from(body.bytes),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text }; // a non-JSON body fails the shape check
  }
}
