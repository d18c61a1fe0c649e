// The copy of a stored payload the adapter hands the library for each lookup
// answered from a row the request already read (src/server/oidc/payload-copy.ts).
import { describe, expect, it } from 'vitest';
import { copyPayload } from '../../../src/server/oidc/payload-copy.js';

const grant = {
  iat: 1764470000,
  exp: 1765679600,
  accountId: 'u1',
  clientId: 'c1',
  kind: 'Grant',
  jti: 'g1',
  openid: { scope: 'openid profile', claims: ['sub', 'sid', null] },
  resources: { 'urn:keyhold:api': 'read' },
  rar: [],
  consumed: 0,
  flag: false,
  nothing: null,
};

describe('payload copy', () => {
  it('is equal to the payload, key order included, and shares no object with it', () => {
    const copy = copyPayload(grant);
    expect(copy).toStrictEqual(grant);
    expect(Object.keys(copy)).toEqual(Object.keys(grant));
    copy.openid.claims.push('email');
    copy.resources['urn:keyhold:api'] = 'write';
    (copy.rar as unknown[]).push({ type: 'x' });
    expect(grant.openid.claims).toEqual(['sub', 'sid', null]);
    expect(grant.resources['urn:keyhold:api']).toBe('read');
    expect(grant.rar).toEqual([]);
  });

  it('copies what the driver parses from JSON as it is: a key __proto__ stays an own key, never the prototype', () => {
    const parsed = JSON.parse('{"claims":{"userinfo":{"__proto__":{"admin":true},"email":null}},"list":[{"__proto__":[1]}]}');
    const copy = copyPayload(parsed);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
    const userinfo = copy.claims.userinfo;
    expect(Object.getPrototypeOf(userinfo)).toBe(Object.prototype);
    expect(Object.keys(userinfo)).toEqual(['__proto__', 'email']);
    expect(userinfo.admin).toBeUndefined();
    expect(Object.getPrototypeOf(copy.list[0])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('passes primitives and null through', () => {
    for (const value of [null, 0, -1.5, '', 'text', true, false]) expect(copyPayload(value)).toBe(value);
  });
});
