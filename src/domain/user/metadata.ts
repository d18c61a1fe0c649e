// A user's metadata: the bounds of keys and values, checked before anything is
// decided. Keys are compared and stored in NFC, so two spellings of one text
// are one key. Values are bytes (base64 in events and JSON); they are personal
// data, so no message or log carries them, nor the keys (client text).
import { violation, type FieldViolation } from '../errors/keyhold-error.js';

export const MAX_METADATA_KEY_CHARACTERS = 200;
export const MAX_METADATA_VALUE_BYTES = 2048;
/** Keys one user holds at most: the claim and the fold stay small (64 × 2 KiB). */
export const MAX_METADATA_KEYS = 64;
/** Entries (or keys) one bulk request names at most. */
export const MAX_METADATA_BULK = 64;

// C0, DEL and C1 controls, and lone surrogates (not storable as sent).
const REFUSED_IN_KEY = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

/** The key's stored form (NFC) and its violations at `field`. */
export function metadataKey(field: string, key: string): { key: string; violations: FieldViolation[] } {
  const nfc = key.normalize('NFC');
  const length = [...nfc].length;
  if (length === 0) return { key: nfc, violations: [violation(field, { en: 'is required', de: 'ist erforderlich' })] };
  if (length > MAX_METADATA_KEY_CHARACTERS) {
    return {
      key: nfc,
      violations: [violation(field, { en: `must be at most ${MAX_METADATA_KEY_CHARACTERS} characters`, de: `darf höchstens ${MAX_METADATA_KEY_CHARACTERS} Zeichen lang sein` })],
    };
  }
  if (REFUSED_IN_KEY.test(nfc)) return { key: nfc, violations: [violation(field, { en: 'must not contain control characters', de: 'darf keine Steuerzeichen enthalten' })] };
  return { key: nfc, violations: [] };
}

export function metadataValueRule(field: string, value: Uint8Array): FieldViolation[] {
  if (value.length === 0) return [violation(field, { en: 'is required', de: 'ist erforderlich' })];
  if (value.length > MAX_METADATA_VALUE_BYTES) {
    return [violation(field, { en: `must be at most ${MAX_METADATA_VALUE_BYTES} bytes`, de: `darf höchstens ${MAX_METADATA_VALUE_BYTES} Bytes lang sein` })];
  }
  return [];
}

/** A bulk request's list: 1 to MAX_METADATA_BULK entries. */
export function bulkRule(field: string, count: number): FieldViolation[] {
  if (count === 0) return [violation(field, { en: 'is required', de: 'ist erforderlich' })];
  if (count > MAX_METADATA_BULK) return [violation(field, { en: `must have at most ${MAX_METADATA_BULK} entries`, de: `darf höchstens ${MAX_METADATA_BULK} Einträge haben` })];
  return [];
}

/** A key named twice in one request: refused at its second place. */
export const repeatedKey = (field: string) => violation(field, { en: 'names a key already named in this request', de: 'nennt einen Schlüssel, der in dieser Anfrage schon genannt ist' });

/** More keys than a user may hold: refused at the first new key past the bound. */
export const tooManyKeys = (field: string) =>
  violation(field, { en: `is a new key, and a user holds at most ${MAX_METADATA_KEYS} keys`, de: `ist ein neuer Schlüssel, und ein Benutzer hat höchstens ${MAX_METADATA_KEYS} Schlüssel` });
