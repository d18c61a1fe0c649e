// Authenticator-app codes (TOTP, RFC 6238 over RFC 4226's HOTP): the one
// profile every authenticator app reads from a QR code — HMAC-SHA-1, 6 digits,
// 30-second steps — and a 20-byte secret (RFC 4226 §4 asks for at least 128
// bits, 160 recommended), shown base32 without padding as the apps expect.
// Pure: the caller passes the time, the secret and its randomness.
import { createHmac } from 'node:crypto';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_SECRET_BYTES = 20;
/** Codes of one step before and after now are accepted too: a phone's clock a little off, a code typed as it turned. */
export const TOTP_WINDOW_STEPS = 1;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, no padding (what otpauth:// URIs carry). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The bytes of a base32 text (case-insensitive, padding and spaces ignored); undefined for any other character. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of clean) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return undefined;
    buffer = (buffer << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP: the `digits`-digit code of `counter`, zero-padded. */
export function hotp(secret: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The time step of `nowMs` (RFC 6238 T, with T0 = 0). */
export const timeStep = (nowMs: number): number => Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS);

/** The code an authenticator app shows at `nowMs`. */
export const totpAt = (secret: Uint8Array, nowMs: number, digits = TOTP_DIGITS): string => hotp(secret, timeStep(nowMs), digits);

/**
 * The otpauth:// URI an authenticator app reads (Google Authenticator's key
 * URI format): label `issuer:loginName`, each part percent-encoded on its own
 * so a colon, space, `&` or `#` in either cannot break the label or the query.
 */
export function otpauthUri(input: { issuer: string; loginName: string; secret: Uint8Array }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.loginName)}`;
  const query = [
    `secret=${base32Encode(input.secret)}`,
    `issuer=${encodeURIComponent(input.issuer)}`,
    'algorithm=SHA1',
    `digits=${TOTP_DIGITS}`,
    `period=${TOTP_PERIOD_SECONDS}`,
  ].join('&');
  return `otpauth://totp/${label}?${query}`;
}

export type TotpCheck =
  | { ok: true; step: number }
  | { ok: false; reason: 'malformed'; detail: string }
  | { ok: false; reason: 'wrong' };

/**
 * The code as typed: spaces (ASCII space, tab, no-break space) are taken out,
 * since apps show "123 456" and people type it so; what remains must be
 * exactly six ASCII digits. No other normalization: full-width or other
 * scripts' digits are refused, never mapped.
 */
export function normalizeTotpCode(typed: string): { ok: true; code: string } | { ok: false; detail: string } {
  if (typeof typed !== 'string' || typed.length > 64) return { ok: false, detail: 'must be 6 digits' };
  const code = typed.replace(/[ \t\u00a0]/g, '');
  if (code.length === 0) return { ok: false, detail: 'is required' };
  if (!/^[0-9]{6}$/.test(code)) return { ok: false, detail: 'must be exactly 6 digits 0-9' };
  return { ok: true, code };
}

/**
 * Checks a typed code against the steps now−1, now, now+1 and answers the
 * one it matched (the caller records it so that step is never accepted
 * again). Every candidate is compared, in constant time per comparison.
 */
export function verifyTotp(secret: Uint8Array, typed: string, nowMs: number): TotpCheck {
  const normal = normalizeTotpCode(typed);
  if (!normal.ok) return { ok: false, reason: 'malformed', detail: normal.detail };
  const now = timeStep(nowMs);
  let matched: number | undefined;
  for (let step = now - TOTP_WINDOW_STEPS; step <= now + TOTP_WINDOW_STEPS; step++) {
    if (sameCode(hotp(secret, step), normal.code) && matched === undefined) matched = step;
  }
  return matched === undefined ? { ok: false, reason: 'wrong' } : { ok: true, step: matched };
}

function sameCode(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
