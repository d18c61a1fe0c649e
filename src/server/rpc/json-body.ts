// JSON as it enters Keyhold over HTTP (REST bodies, Connect and gRPC(-Web) JSON
// messages): the strict reader of src/domain/json, and its refusals as the
// errors a client sees — a 400 naming the problem and, where there is one, the
// field.
import { KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { JsonRejection, readStrictJson, type JsonValue } from '../../domain/json/strict-json.js';

/**
 * The JSON value of a body, or undefined for an empty one: a bodiless POST or
 * DELETE that still says `content-type: application/json` (many SDKs and copied
 * curl commands do) is an empty message, not a syntax error.
 */
export function readJsonBody(bytes: Uint8Array): JsonValue | undefined {
  if (bytes.byteLength === 0) return undefined;
  try {
    return readStrictJson(bytes);
  } catch (e) {
    throw e instanceof JsonRejection ? jsonRejectionError(e) : e;
  }
}

export function jsonRejectionError(e: JsonRejection): KeyholdError {
  const field = e.path;
  switch (e.problem) {
    case 'not-utf8':
      return new KeyholdError('BODY_NOT_UTF8');
    case 'syntax':
      return new KeyholdError('MALFORMED_BODY', { problem: 'the body is not valid JSON' });
    case 'duplicate-key':
      return new KeyholdError('JSON_DUPLICATE_KEY', { field }, [
        violation(field, { en: 'appears more than once in its object', de: 'kommt in seinem Objekt mehrmals vor' }),
      ]);
    case 'unpaired-surrogate':
      return new KeyholdError('JSON_UNPAIRED_SURROGATE', { field }, [
        violation(field, { en: 'has an escape for half a surrogate pair', de: 'enthält ein Escape für ein halbes Surrogatpaar' }),
      ]);
    case 'prototype-key':
      return new KeyholdError('JSON_PROTOTYPE_KEY', { field }, [
        violation(field, { en: 'is not an accepted key', de: 'ist kein angenommener Schlüssel' }),
      ]);
  }
}
