// The TOTP domain against RFC 6238's test vectors and an independent
// implementation (the otpauth package: what an authenticator app computes).
import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import {
  base32Decode,
  base32Encode,
  hotp,
  normalizeTotpCode,
  otpauthUri,
  timeStep,
  totpAt,
  verifyTotp,
} from '../../../src/domain/totp/totp.js';

// RFC 6238 Appendix B: the SHA-1 seed is the ASCII "12345678901234567890"; 8 digits there.
const RFC_SEED = Buffer.from('12345678901234567890', 'ascii');
const RFC_VECTORS: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('RFC 6238 / RFC 4226', () => {
  it.each(RFC_VECTORS)('T = %i s gives %s (8 digits, SHA-1)', (seconds, code) => {
    expect(totpAt(RFC_SEED, seconds * 1000, 8)).toBe(code);
  });

  it('RFC 4226 Appendix D HOTP values', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, i) => hotp(RFC_SEED, i))).toEqual(expected);
  });
});

describe('against the otpauth package', () => {
  it('the same 6-digit codes for 200 random secrets and times', () => {
    for (let i = 0; i < 200; i++) {
      const secret = randomBytes(20);
      const at = Math.floor(Math.random() * 4_000_000_000_000);
      const theirs = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(base32Encode(secret)), algorithm: 'SHA1', digits: 6, period: 30 });
      expect(totpAt(secret, at)).toBe(theirs.generate({ timestamp: at }));
    }
  });

  it('base32 without padding, read back by otpauth and by us', () => {
    for (const n of [1, 5, 10, 19, 20, 32]) {
      const bytes = randomBytes(n);
      const text = base32Encode(bytes);
      expect(text).toMatch(/^[A-Z2-7]+$/);
      expect(Buffer.from(OTPAuth.Secret.fromBase32(text).bytes)).toEqual(bytes);
      expect(base32Decode(text)).toEqual(bytes);
    }
    expect(base32Encode(randomBytes(20))).toHaveLength(32);
  });

  it('the URI parses in otpauth with the issuer, label, secret and profile', () => {
    const secret = randomBytes(20);
    const uri = otpauthUri({ issuer: 'login.example.com', loginName: 'ada@example.com', secret });
    expect(uri).toBe(
      `otpauth://totp/login.example.com:ada%40example.com?secret=${base32Encode(secret)}&issuer=login.example.com&algorithm=SHA1&digits=6&period=30`,
    );
    const parsed = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
    expect(parsed.issuer).toBe('login.example.com');
    expect(parsed.label).toBe('ada@example.com');
    expect(parsed.secret.base32).toBe(base32Encode(secret));
    expect([parsed.algorithm, parsed.digits, parsed.period]).toEqual(['SHA1', 6, 30]);
  });

  it('escapes a colon, spaces, & and # in the label and the issuer', () => {
    const uri = otpauthUri({ issuer: 'Acme: Login & Co', loginName: 'a:b #c&d=e', secret: randomBytes(20) });
    const [label, query] = uri.slice('otpauth://totp/'.length).split('?');
    expect(label).toBe('Acme%3A%20Login%20%26%20Co:a%3Ab%20%23c%26d%3De');
    expect(new URLSearchParams(query).get('issuer')).toBe('Acme: Login & Co');
    // The label's one literal colon separates issuer and name; each part decodes back.
    expect(label!.split(':').map(decodeURIComponent)).toEqual(['Acme: Login & Co', 'a:b #c&d=e']);
    // otpauth decodes the label before splitting it, so it reads the query's issuer right and not the label's.
    expect((OTPAuth.URI.parse(uri) as OTPAuth.TOTP).issuer).toBe('Acme: Login & Co');
  });
});

describe('verifyTotp', () => {
  const secret = randomBytes(20);
  const now = 1_800_000_015_000;
  const step = timeStep(now);
  const codeAt = (s: number) => hotp(secret, s);

  it('accepts now, one step before and one after, answering the matched step', () => {
    expect(verifyTotp(secret, codeAt(step), now)).toEqual({ ok: true, step });
    expect(verifyTotp(secret, codeAt(step - 1), now)).toEqual({ ok: true, step: step - 1 });
    expect(verifyTotp(secret, codeAt(step + 1), now)).toEqual({ ok: true, step: step + 1 });
  });

  it('refuses two steps away', () => {
    for (const s of [step - 2, step + 2, step - 3, step + 10]) {
      // A code of a far step may by chance equal one in the window: skip such a collision.
      if ([step - 1, step, step + 1].some((w) => codeAt(w) === codeAt(s))) continue;
      expect(verifyTotp(secret, codeAt(s), now)).toEqual({ ok: false, reason: 'wrong' });
    }
  });

  it('strips spaces inside (as apps show "123 456"), nothing else', () => {
    const code = codeAt(step);
    expect(verifyTotp(secret, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toEqual({ ok: true, step });
    expect(verifyTotp(secret, ` ${code}\t`, now)).toEqual({ ok: true, step });
    expect(verifyTotp(secret, `${code.slice(0, 3)}-${code.slice(3)}`, now)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it.each(['', '12345', '1234567', 'abcdef', '12345a', '１２３４５６', '١٢٣٤٥٦', '123456\n', '+12345', '0x1234', '1'.repeat(100)])(
    'refuses %j as malformed with a reason',
    (typed) => {
      const checked = verifyTotp(secret, typed, now);
      expect(checked).toMatchObject({ ok: false, reason: 'malformed' });
      expect((checked as { detail: string }).detail).toMatch(/digits|required/);
    },
  );

  it('normalizeTotpCode answers the six digits', () => {
    expect(normalizeTotpCode('012 345')).toEqual({ ok: true, code: '012345' });
    expect(normalizeTotpCode('')).toEqual({ ok: false, detail: 'is required' });
  });
});
