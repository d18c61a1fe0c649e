// Which fields of a JSON request do not fit its message, each by its full path
// (`profile.preferredLanguage`, `redirectUris[3]`). protobuf-es stops at the
// first bad value, names it by its proto name and quotes the value (which may be
// a secret). Only on that error path, this walks the JSON along the descriptors
// and decodes each leaf alone, so every bad field is named, none is blamed on its
// parent, and no value is echoed. Used by REST and by Connect/gRPC JSON.
import { fromJson, type DescField, type DescMessage, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { invalidRequest, violation, type FieldViolation, type KeyholdError } from '../../domain/errors/keyhold-error.js';

const MAX_KEY = 64;

export function fieldByName(message: DescMessage, key: string): DescField | undefined {
  return message.fields.find((f) => f.jsonName === key || f.name === key);
}

/** 400 INVALID_REQUEST naming every field of `json` that does not decode into `input`. */
export function jsonDecodeError(input: DescMessage, json: JsonValue): KeyholdError {
  const violations: FieldViolation[] = [];
  if (isObject(json)) walkMessage(input, json, '', violations);
  else violations.push(wrongType(''));
  if (violations.length === 0) violations.push(violation('', { en: 'is not a valid request body', de: 'ist kein gültiger Anfrageinhalt' }));
  return invalidRequest(violations);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** google.protobuf types have JSON forms of their own (Timestamp, Duration, Struct…): checked whole. */
function walksInto(message: DescMessage): boolean {
  return !message.typeName.startsWith('google.protobuf.');
}

function join(path: string, key: string): string {
  const name = key.length > MAX_KEY ? `${key.slice(0, MAX_KEY)}…` : key;
  return path === '' ? name : `${path}.${name}`;
}

function walkMessage(message: DescMessage, json: JsonObject, path: string, out: FieldViolation[]): void {
  const seen = new Set<DescField>();
  for (const [key, value] of Object.entries(json)) {
    const at = join(path, key);
    const field = fieldByName(message, key);
    if (!field) {
      out.push(violation(at, { en: 'is not a field of this request', de: 'ist kein Feld dieser Anfrage' }));
      continue;
    }
    // `redirectUris` and `redirect_uris` name one field: two keys for one value is ambiguous.
    if (seen.has(field) || (field.oneof && [...seen].some((f) => f.oneof === field.oneof))) {
      out.push(violation(at, { en: 'sets a field another key of this object already set', de: 'setzt ein Feld, das ein anderer Schlüssel dieses Objekts schon gesetzt hat' }));
      continue;
    }
    seen.add(field);
    if (value === null) {
      check(message, key, value, at, out);
      continue;
    }
    switch (field.fieldKind) {
      case 'message':
        if (walksInto(field.message) && isObject(value)) walkMessage(field.message, value, at, out);
        else check(message, key, value, at, out);
        break;
      case 'list':
        if (!Array.isArray(value)) {
          check(message, key, value, at, out);
          break;
        }
        value.forEach((item, i) => {
          const itemAt = `${at}[${i}]`;
          if (field.listKind === 'message' && walksInto(field.message) && isObject(item)) walkMessage(field.message, item, itemAt, out);
          else check(message, key, [item], itemAt, out);
        });
        break;
      case 'map':
        if (!isObject(value)) {
          check(message, key, value, at, out);
          break;
        }
        for (const [mapKey, item] of Object.entries(value)) {
          const itemAt = `${at}[${JSON.stringify(mapKey.slice(0, MAX_KEY))}]`;
          if (field.mapKind === 'message' && walksInto(field.message) && isObject(item)) walkMessage(field.message, item, itemAt, out);
          else check(message, key, { [mapKey]: item }, itemAt, out);
        }
        break;
      default:
        check(message, key, value, at, out);
    }
  }
}

/** Decodes one field alone; a failure becomes a violation at `at`, described by what went wrong. */
function check(message: DescMessage, key: string, value: JsonValue, at: string, out: FieldViolation[]): void {
  try {
    fromJson(message, { [key]: value });
  } catch (e) {
    const text = e instanceof Error ? e.message : '';
    if (/decode enum/.test(text)) {
      out.push(violation(at, { en: 'is not one of the allowed values', de: 'ist keiner der erlaubten Werte' }));
    } else if (/google\.protobuf\.Duration/.test(text)) {
      out.push(violation(at, { en: 'must be a duration like "1.5s"', de: 'muss eine Dauer wie "1.5s" sein' }));
    } else if (/google\.protobuf\.Timestamp/.test(text)) {
      out.push(violation(at, { en: 'must be an RFC 3339 timestamp', de: 'muss ein Zeitstempel nach RFC 3339 sein' }));
    } else {
      out.push(wrongType(at));
    }
  }
}

function wrongType(at: string): FieldViolation {
  return violation(at, { en: 'has a value of the wrong type', de: 'hat einen Wert des falschen Typs' });
}
