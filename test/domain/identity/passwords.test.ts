// Password rules (NIST SP 800-63B) and the stored form (argon2id, OWASP).
import { describe, expect, it } from 'vitest';
import { hashPassword, isCommonPassword, passwordRule, verifyPasswordHash } from '../../../src/domain/identity/passwords.js';

const fields = (password: string, username = 'ada') => passwordRule('password.password', password, username).map((v) => v.describe('en'));

describe('password rules', () => {
  it('at least 8 and at most 256 characters, counted in code points after NFC; no composition rules', () => {
    expect(fields('abcdefg')).toEqual(['must be at least 8 characters long']);
    expect(fields('e\u0301'.repeat(7))).toEqual(['must be at least 8 characters long']); // 14 code points as sent, 7 after NFC
    expect(fields('e\u0301'.repeat(8))).toEqual([]);
    expect(fields('😀😀😀😀')).toEqual(['must be at least 8 characters long']); // 8 UTF-16 units, 4 characters
    expect(fields('x'.repeat(257))).toEqual(['must be at most 256 characters long']);
    expect(fields('𝔁'.repeat(256))).toEqual([]);
    expect(fields('all lowercase words')).toEqual([]);
    expect(fields('        ')).toEqual([]); // spaces are characters too (NIST: all printing characters and space)
  });

  it('common passwords (any case) and the username are refused; control characters and half UTF-16 pairs too', () => {
    expect(isCommonPassword('PASSWORD1')).toBe(true);
    expect(fields('Iloveyou1')).toEqual(['is one of the most common passwords, which attackers try first; choose another']);
    expect(fields('Ada-Lovelace', 'ada-lovelace')).toEqual(['must not be the username']);
    expect(fields('Ada-Lovelace', '')).toEqual([]);
    expect(fields('tab\there-ok?')).toEqual(['must not contain control characters']);
    expect(fields('abcdefgh\ud800')).toEqual(['must not contain half of a UTF-16 pair']);
    expect(fields('')).toEqual(['is required']);
  });

  it('the messages are in German too, and never hold the password', () => {
    const [v] = passwordRule('p', 'Iloveyou1', 'ada');
    expect(v!.describe('de')).toMatch(/häufigsten Passwörter/);
    expect(v!.describe('en')).not.toContain('Iloveyou1');
  });
});

describe('argon2id', () => {
  it('OWASP parameters, a fresh salt per hash, NFC on both sides; malformed hashes and no hash are false', async () => {
    const [a, b] = await Promise.all([hashPassword('Zwölf Boxkämpfer'), hashPassword('Zwölf Boxkämpfer')]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPasswordHash(a, 'Zwölf Boxkämpfer')).toBe(true);
    expect(await verifyPasswordHash(a, 'Zwo\u0308lf Boxka\u0308mpfer')).toBe(true); // NFD typed, NFC stored
    expect(await verifyPasswordHash(a, 'zwölf boxkämpfer')).toBe(false);
    expect(await verifyPasswordHash('not a hash', 'x')).toBe(false);
    expect(await verifyPasswordHash(null, 'Zwölf Boxkämpfer')).toBe(false);
  });

  it('no hash costs about as much as a real check (a dummy verification)', async () => {
    const hash = await hashPassword('some password');
    await verifyPasswordHash(null, 'warm'); // makes the dummy hash
    // CPU time of this process (argon2 runs on libuv's pool, counted too), not wall time:
    // other processes' load on the machine does not move it. The fastest of each, interleaved.
    const real: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < 5; i++) {
      for (const [list, stored] of [[real, hash], [none, null]] as const) {
        const before = process.cpuUsage();
        await verifyPasswordHash(stored, 'wrong password');
        const used = process.cpuUsage(before);
        list.push(used.user + used.system);
      }
    }
    expect(Math.min(...real)).toBeGreaterThan(2_000); // µs: a real argon2id verification happened
    expect(Math.min(...none)).toBeGreaterThan(Math.min(...real) * 0.5);
  });
});
