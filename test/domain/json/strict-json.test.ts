// The strict JSON reader: what JSON.parse accepts silently and Keyhold refuses,
// what it still accepts, and where it says the problem is.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonRejection, readStrictJson, type JsonProblem } from '../../../src/domain/json/strict-json.js';

const enc = new TextEncoder();

function rejection(input: string | Uint8Array): { problem: JsonProblem; path: string } {
  try {
    readStrictJson(typeof input === 'string' ? enc.encode(input) : input);
  } catch (e) {
    if (e instanceof JsonRejection) return { problem: e.problem, path: e.path };
    throw e;
  }
  throw new Error(`accepted: ${String(input)}`);
}

/** Whether a value holds a key the reader refuses as a prototype key. */
function hasPrototypeKey(value: unknown, parentKey = ''): boolean {
  if (Array.isArray(value)) return value.some((v) => hasPrototypeKey(v));
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(
    ([key, v]) => key === '__proto__' || (parentKey === 'constructor' && key === 'prototype') || hasPrototypeKey(v, key),
  );
}

describe('accepts what JSON.parse reads unambiguously, with the same value', () => {
  it.each([
    '{}',
    '[]',
    '{"a":1,"b":[1,2,{"a":2}],"c":{"a":{"a":3}}}',
    '{"name":"Café 🔑 \\u00e9\\ud83d\\udd11","x":"\\"quoted\\" \\\\ back\\\\slash"}',
    '{"a":{"b":1},"b":{"a":1}}',
    '[{"a":1},{"a":2}]',
    '{"":1,"a":{"":2}}',
    '"text"',
    'null',
    ' \n{ "a" : [ 1 , 2 ] }\t',
    '{"constructor":{"name":"x"},"prototype":1}',
  ])('%s', (text) => {
    expect(readStrictJson(enc.encode(text))).toEqual(JSON.parse(text));
  });

  it('skips a leading byte-order mark', () => {
    expect(readStrictJson(Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode('{"a":1}')]))).toEqual({ a: 1 });
  });

  it('agrees with JSON.parse on any JSON without repeated keys, lone surrogates or prototype keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // "__proto__" (and "prototype" in "constructor") are refused on purpose; see "refuses" below.
        fc.pre(!hasPrototypeKey(value));
        expect(readStrictJson(enc.encode(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('refuses', () => {
  it('bytes that are not UTF-8 (instead of storing U+FFFD)', () => {
    for (const bad of [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
      const bytes = Uint8Array.from([...enc.encode('{"name":"a'), ...bad, ...enc.encode('"}')]);
      expect(rejection(bytes)).toEqual({ problem: 'not-utf8', path: '' });
    }
  });

  it('a repeated key, at the top and at any depth, naming where', () => {
    expect(rejection('{"authMethodType":"NONE","authMethodType":"BASIC"}')).toEqual({ problem: 'duplicate-key', path: 'authMethodType' });
    expect(rejection('{"profile":{"givenName":"a","familyName":"b","givenName":"c"}}')).toEqual({ problem: 'duplicate-key', path: 'profile.givenName' });
    expect(rejection('{"list":[{"a":1},{"a":1,"a":2}]}')).toEqual({ problem: 'duplicate-key', path: 'list[1].a' });
    expect(rejection('[[1],[2,{"x":{"y":1,"y":2}}]]')).toEqual({ problem: 'duplicate-key', path: '[1][1].x.y' });
  });

  it('a repeated key spelled differently with escapes', () => {
    expect(rejection('{"name":"a","n\\u0061me":"b"}')).toEqual({ problem: 'duplicate-key', path: 'name' });
  });

  it('a repeated key in a large object (past the list of keys)', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    expect(rejection(`{${keys.join(',')},"k7":0}`)).toEqual({ problem: 'duplicate-key', path: 'k7' });
    expect(readStrictJson(enc.encode(`{${keys.join(',')}}`))).toHaveProperty('k39', 39);
  });

  it('half a surrogate pair as an escape, in values and keys', () => {
    expect(rejection('{"name":"\\ud800"}')).toEqual({ problem: 'unpaired-surrogate', path: 'name' });
    expect(rejection('{"name":"x\\udfff"}')).toEqual({ problem: 'unpaired-surrogate', path: 'name' });
    expect(rejection('{"name":"\\ud800\\ud800\\udc00"}')).toEqual({ problem: 'unpaired-surrogate', path: 'name' });
    expect(rejection('{"name":"\\ud800x"}')).toEqual({ problem: 'unpaired-surrogate', path: 'name' });
    expect(rejection('{"name":"\\ud800\\n"}')).toEqual({ problem: 'unpaired-surrogate', path: 'name' });
    expect(rejection('{"uris":["ok","\\udc00"]}')).toEqual({ problem: 'unpaired-surrogate', path: 'uris[1]' });
    expect(rejection('{"a":{"\\ud800":1}}')).toEqual({ problem: 'unpaired-surrogate', path: 'a' });
  });

  it('keys JavaScript reads as a prototype', () => {
    expect(rejection('{"__proto__":{"admin":true}}')).toEqual({ problem: 'prototype-key', path: '__proto__' });
    expect(rejection('{"a":[{"\\u005f_proto__":1}]}')).toEqual({ problem: 'prototype-key', path: 'a[0].__proto__' });
    expect(rejection('{"constructor":{"prototype":{"x":1}}}')).toEqual({ problem: 'prototype-key', path: 'constructor.prototype' });
  });

  it('text that is not JSON, without quoting it back', () => {
    for (const text of ['', ' ', '{"name":', '{"a":1,}', "{'a':1}", 'NaN', '{"a":1}{"b":2}']) {
      const err = (() => {
        try {
          readStrictJson(enc.encode(text));
        } catch (e) {
          return e as JsonRejection;
        }
        throw new Error('accepted');
      })();
      expect(err.problem).toBe('syntax');
      expect(err.message).toBe('is not valid JSON');
    }
  });

  it('nesting 100,000 levels deep is read without running out of stack', () => {
    const deep = '{"a":['.repeat(100_000) + ']}'.repeat(100_000);
    expect(() => readStrictJson(enc.encode(deep))).not.toThrow();
    const dup = '{"a":'.repeat(50_000) + '{"b":1,"b":2}' + '}'.repeat(50_000);
    expect(rejection(dup).problem).toBe('duplicate-key');
  });
});
