// The one JSON reader for everything a client sends (REST bodies, Connect and
// gRPC JSON messages, WebAuthn clientDataJSON). JSON.parse alone guesses where
// the input is ambiguous, and Keyhold refuses instead:
//
// - bytes that are not UTF-8 (TextDecoder would store U+FFFD in their place);
// - a key twice in one object, at any depth (JSON.parse keeps the last one, so
//   `{"authMethodType":"NONE","authMethodType":"BASIC"}` meant BASIC to Keyhold
//   while a reader keeping the first saw NONE);
// - an escape for half a surrogate pair ("\ud800" alone): no UTF-8 text can
//   hold it, so it would be stored as U+FFFD — a silent change of the value;
// - the key "__proto__" anywhere, and "prototype" inside "constructor": keys that
//   JavaScript code merging objects reads as the object's prototype (fastify's
//   default parser refused them too).
//
// Cost: the text is decoded and parsed once by the engine (TextDecoder,
// JSON.parse), then scanned once, linearly, for what JSON.parse does not report;
// the scan builds no values, only the keys of each object.
// A leading byte-order mark is skipped, as TextDecoder does by default (RFC 8259
// §8.1 lets a parser ignore one).

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonProblem =
  /** The bytes are not UTF-8. */
  | 'not-utf8'
  /** Not JSON at all (syntax). */
  | 'syntax'
  /** A key appears twice in one object; `path` names the second one. */
  | 'duplicate-key'
  /** A \uD800–\uDFFF escape without its other half; `path` names the string. */
  | 'unpaired-surrogate'
  /** "__proto__", or "prototype" inside "constructor"; `path` names the key. */
  | 'prototype-key';

const DESCRIPTIONS: Record<JsonProblem, string> = {
  'not-utf8': 'is not UTF-8 text',
  syntax: 'is not valid JSON',
  'duplicate-key': 'has a key twice in one object',
  'unpaired-surrogate': 'has an unpaired surrogate escape (half of a \\uD800–\\uDFFF pair)',
  'prototype-key': 'has a key that JavaScript reads as a prototype',
};

export class JsonRejection extends Error {
  /** What is wrong, to follow the name of the text: "is not valid UTF-8". */
  readonly description: string;
  constructor(
    readonly problem: JsonProblem,
    /** Where, as a field path (`profile.givenName`, `redirectUris[3]`); '' for the whole text. */
    readonly path: string,
  ) {
    super(path ? `${DESCRIPTIONS[problem]} (at ${path})` : DESCRIPTIONS[problem]);
    this.name = 'JsonRejection';
    this.description = DESCRIPTIONS[problem];
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes and parses `bytes` as strict JSON (see above), or throws a JsonRejection. */
export function readStrictJson(bytes: Uint8Array): JsonValue {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new JsonRejection('not-utf8', '');
  }
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    // The engine's message quotes the input; never pass it on.
    throw new JsonRejection('syntax', '');
  }
  scan(text);
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
/** Past this many keys, an object's keys go into a Set (a list is faster below it). */
const LIST_KEYS = 12;
const MAX_PATH_KEY = 64;

interface Frame {
  array: boolean;
  /** Arrays: index of the current element. */
  index: number;
  /** Objects: the next string is a key. */
  expectKey: boolean;
  /** Objects: the current key (for paths and the constructor/prototype check). */
  key: string;
  keys: string[] | Set<string> | undefined;
}

/**
 * Walks text that JSON.parse accepted: strings, and the structure around them.
 * Knowing the text is valid JSON keeps this simple: a string right after "{" or
 * "," inside an object is a key, and nothing else needs checking.
 */
function scan(text: string): void {
  const stack: Frame[] = [];
  let top: Frame | undefined;
  // Position of the next backslash, so strings without escapes are found with
  // indexOf alone (and the search for backslashes runs once over the text).
  let nextEscape = text.indexOf('\\');
  if (nextEscape === -1) nextEscape = Infinity;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      let end = text.indexOf('"', start);
      let escaped = false;
      if (nextEscape < end) {
        escaped = true;
        end = escapedStringEnd(text, start, stack);
        nextEscape = text.indexOf('\\', end);
        if (nextEscape === -1) nextEscape = Infinity;
      }
      if (top !== undefined && !top.array && top.expectKey) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(start, end);
        addKey(top, key, stack);
      }
      i = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      top = { array: c === OPEN_ARRAY, index: 0, expectKey: c === OPEN_OBJECT, key: '', keys: undefined };
      stack.push(top);
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
      top = stack[stack.length - 1];
      i++;
    } else if (c === COMMA) {
      if (top !== undefined) {
        if (top.array) top.index++;
        else top.expectKey = true;
      }
      i++;
    } else {
      i++;
    }
  }
}

function addKey(frame: Frame, key: string, stack: Frame[]): void {
  frame.expectKey = false;
  frame.key = key;
  if (key === '__proto__' || (key === 'prototype' && stack.length >= 2 && parentKeyIs(stack, 'constructor'))) {
    throw new JsonRejection('prototype-key', pathOf(stack));
  }
  const keys = frame.keys;
  if (keys === undefined) {
    frame.keys = [key];
  } else if (Array.isArray(keys)) {
    if (keys.includes(key)) throw new JsonRejection('duplicate-key', pathOf(stack));
    keys.push(key);
    if (keys.length > LIST_KEYS) frame.keys = new Set(keys);
  } else {
    if (keys.has(key)) throw new JsonRejection('duplicate-key', pathOf(stack));
    keys.add(key);
  }
}

function parentKeyIs(stack: Frame[], key: string): boolean {
  const parent = stack[stack.length - 2];
  return !parent.array && parent.key === key;
}

/**
 * End (index of the closing quote) of a string with escapes that starts at
 * `start`, checking every \u escape for a lone surrogate on the way.
 */
function escapedStringEnd(text: string, start: number, stack: Frame[]): number {
  let i = start;
  // After a high-surrogate escape, the very next thing must be a low-surrogate escape.
  let wantLow = false;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      const kind = text.charCodeAt(i + 1);
      if (kind === 0x75 /* u */) {
        const unit = parseInt(text.slice(i + 2, i + 6), 16);
        const high = unit >= 0xd800 && unit <= 0xdbff;
        const low = unit >= 0xdc00 && unit <= 0xdfff;
        if (wantLow !== low) throw new JsonRejection('unpaired-surrogate', pathOf(stack));
        wantLow = high;
        i += 6;
      } else {
        if (wantLow) throw new JsonRejection('unpaired-surrogate', pathOf(stack));
        i += 2;
      }
    } else {
      if (wantLow) throw new JsonRejection('unpaired-surrogate', pathOf(stack));
      if (c === QUOTE) return i;
      i++;
    }
  }
}

/**
 * The field path of where the scan is: `a.b[2].c` (keys cut to 64 characters).
 * Inside a key that is still being read, the path of the object holding it.
 */
function pathOf(stack: Frame[]): string {
  let path = '';
  for (const frame of stack) {
    if (frame.array) path += `[${frame.index}]`;
    else if (!frame.expectKey) {
      const key = frame.key.length > MAX_PATH_KEY ? `${frame.key.slice(0, MAX_PATH_KEY)}…` : frame.key;
      path += path === '' ? key : `.${key}`;
    }
  }
  return path;
}
