// Look-alike identifiers: what a username or a display name may hold, and the
// key two names are compared by. Pure functions, no database: the point is
// that nothing here depends on a locale.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkDisplayName,
  checkUsername,
  describeNameProblem,
  displayNameKey,
  MAX_KEY_BYTES,
  usernameKey,
  widthMap,
  type NameProblem,
} from '../../../src/domain/identity/identifiers.js';

const problemOf = (r: { problem?: NameProblem }) =>
  r.problem === undefined ? 'ok' : r.problem.code === 'CHARACTER' ? `${r.problem.kind} ${r.problem.codePoint}` : r.problem.code;

describe('display names (app, project, org, personal names)', () => {
  it('Café, CAFÉ, Cafe + U+0301 and full-width Ｃａｆé share one key', () => {
    const spellings = ['Café', 'CAFÉ', 'Cafe\u0301', 'CAFE\u0301', '\uFF23\uFF41\uFF46é', 'café', ' café '];
    const keys = spellings.map(displayNameKey);
    expect(new Set(keys)).toEqual(new Set(['café']));
    for (const s of spellings) expect(problemOf(checkDisplayName(s, 200))).toBe('ok');
  });

  it('keeps the display form as sent, trimmed and in NFC', () => {
    expect(checkDisplayName('  Cafe\u0301 Bar ', 200).value).toBe('Caf\u00e9 Bar');
    expect(checkDisplayName('\uFF23\uFF41\uFF46é', 200).value).toBe('\uFF23\uFF41\uFF46é');
  });

  it('compatibility forms and white space runs share the key of their plain spelling', () => {
    expect(displayNameKey('\uFB01le')).toBe(displayNameKey('file')); // ligature ﬁ
    expect(displayNameKey('\u{1D40F}\u{1D41A}\u{1D432}')).toBe('pay'); // mathematical bold
    expect(displayNameKey('My  App')).toBe(displayNameKey('my app'));
    expect(displayNameKey('My\u00A0App')).toBe(displayNameKey('My App'));
    expect(displayNameKey('My\u3000App')).toBe(displayNameKey('My App'));
  });

  it('case folding: ß and ẞ are ss, final sigma is sigma, the dotless ı meets i (documented)', () => {
    expect(displayNameKey('Straße')).toBe(displayNameKey('STRASSE'));
    expect(displayNameKey('\u1E9E')).toBe(displayNameKey('ss'));
    expect(displayNameKey('ΟΔΟΣ')).toBe(displayNameKey('οδος'));
    expect(displayNameKey('οδοσ')).toBe(displayNameKey('οδος'));
    // Unicode case folding keeps ı apart from i; Keyhold's fold (toUpperCase
    // then toLowerCase) maps ı → I → i. Stricter: "ıstanbul" collides with "Istanbul".
    expect(displayNameKey('ıstanbul')).toBe(displayNameKey('Istanbul'));
    // İ folds to i + U+0307 (as in Unicode's case folding): not the plain i.
    expect(displayNameKey('İstanbul')).not.toBe(displayNameKey('Istanbul'));
  });

  it.each([
    ['Ca\u200Bfé', 'invisible U+200B'], // zero-width space
    ['Ca\u200Cfé', 'invisible U+200C'], // ZWNJ outside a joining context
    ['Ca\u200Dfé', 'invisible U+200D'], // ZWJ outside an emoji or virama context
    ['Ca\u2060fé', 'invisible U+2060'], // word joiner
    ['Ca\u00ADfé', 'invisible U+00AD'], // soft hyphen
    ['x\uFEFFy', 'invisible U+FEFF'],
    ['\u3164', 'invisible U+3164'], // Hangul filler
    ['\u2800', 'invisible U+2800'], // braille blank
    ['Ca\u{E0041}fé', 'invisible U+E0041'], // a tag character outside a flag
    ['abc\u202Edef', 'bidi-control U+202E'],
    ['abc\u202Adef', 'bidi-control U+202A'],
    ['abc\u2066def', 'bidi-control U+2066'],
    ['abc\u200Fdef', 'bidi-control U+200F'],
    ['abc\u061Cdef', 'bidi-control U+061C'],
    ['a\u2028b', 'line-separator U+2028'],
    ['a\u2029b', 'line-separator U+2029'],
    ['a\nb', 'control U+000A'],
    ['a\u0085b', 'control U+0085'],
    ['x\uFDD0', 'noncharacter U+FDD0'],
    ['x\uFFFE', 'noncharacter U+FFFE'],
    ['x\u{1FFFF}', 'noncharacter U+1FFFF'],
    ['x\uD800', 'surrogate U+D800'],
    ['x\uDC00y', 'surrogate U+DC00'],
    ['x\uE000', 'private-use U+E000'],
    ['x\u{10FFFD}', 'private-use U+10FFFD'],
    ['x\u0378', 'unassigned U+0378'],
    ['\u0301abc', 'leading-mark U+0301'],
    ['\uFE0Fa', 'invisible U+FE0F'], // a variation selector with nothing to select
  ])('%j is refused: %s', (name, expected) => {
    expect(problemOf(checkDisplayName(name, 200))).toBe(expected);
  });

  it('a name of only invisible characters is refused; one of only marks shows nothing', () => {
    expect(problemOf(checkDisplayName('\u200B\u200B', 200))).toBe('invisible U+200B');
    expect(problemOf(checkDisplayName('\u2800\u2800', 200))).toBe('invisible U+2800');
    expect(problemOf(checkDisplayName('   ', 200))).toBe('EMPTY');
    expect(problemOf(checkDisplayName('a', 200))).toBe('ok');
  });

  it('emoji sequences and contextual joiners are accepted, and the invisible parts leave the key', () => {
    for (const ok of ['👩\u200D💻 Dev', '❤\uFE0F App', '👍\u{1F3FD}', '🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} England', 'می\u200Cخواهم', 'क्\u200Dष', '葛\u{E0100}']) {
      expect(problemOf(checkDisplayName(ok, 200)), ok).toBe('ok');
    }
    expect(displayNameKey('❤\uFE0F App')).toBe(displayNameKey('❤ App'));
    expect(displayNameKey('می\u200Cخواهم')).toBe(displayNameKey('میخواهم'));
  });

  it('counts code points against the limit, and bounds the key that goes into the index', () => {
    expect(problemOf(checkDisplayName('🔑'.repeat(200), 200))).toBe('ok');
    expect(checkDisplayName('a'.repeat(201), 200).problem).toEqual({ code: 'TOO_LONG', max: 200, length: 201 });
    // U+FDFA is one character that NFKC makes 18: 200 of them would overflow a btree entry.
    expect(problemOf(checkDisplayName('\uFDFA'.repeat(200), 200))).toBe('NORMALIZED_TOO_LONG');
    expect(new TextEncoder().encode(displayNameKey('\uFDFA'.repeat(20))).length).toBeLessThanOrEqual(MAX_KEY_BYTES);
  });

  it('strips default ignorables from keys, so names stored before these rules collide with what they imitate', () => {
    expect(displayNameKey('Ca\u200Bfé')).toBe(displayNameKey('Café'));
    expect(displayNameKey('ad\u2060min')).toBe('admin');
  });
});

describe('usernames (RFC 8265 UsernameCaseMapped)', () => {
  it('Café, CAFÉ, Cafe + U+0301 and full-width Ｃａｆé share one key', () => {
    const keys = ['Café', 'CAFÉ', 'Cafe\u0301', '\uFF23\uFF41\uFF46é'].map((u) => checkUsername(u, 200));
    for (const k of keys) expect(problemOf(k)).toBe('ok');
    expect(new Set(keys.map((k) => usernameKey(k.value)))).toEqual(new Set(['café']));
  });

  it('width-maps and NFCs the stored form, keeping its case', () => {
    expect(checkUsername('\uFF21\uFF44\uFF41', 200).value).toBe('Ada');
    expect(checkUsername(' Cafe\u0301 ', 200).value).toBe('Caf\u00e9');
    expect(widthMap('\uFF01\u3000\uFF71')).toBe('! \u30A2');
  });

  it('maps case with toLowerCase as RFC 8265 §3.3.1 says: ß stays apart from ss, ẞ becomes ß, ı stays apart from i', () => {
    expect(usernameKey('STRASSE')).toBe('strasse');
    expect(usernameKey('straße')).toBe('straße');
    expect(usernameKey('\u1E9E')).toBe('ß');
    expect(usernameKey('Ix')).toBe('ix');
    expect(usernameKey('ıx')).toBe('ıx');
    expect(usernameKey('ΣΑΣ')).toBe(usernameKey('σας'));
  });

  it.each([
    ['ada lovelace', 'space U+0020'],
    ['ada\u00A0lovelace', 'space U+00A0'],
    ['ad\u200Bmin', 'invisible U+200B'],
    ['ad\u200Dmin', 'invisible U+200D'],
    ['admin\u202E', 'bidi-control U+202E'],
    ['ad\u2028min', 'line-separator U+2028'],
    ['ad\nmin', 'control U+000A'],
    ['admin\uFDD0', 'noncharacter U+FDD0'],
    ['admin\uD800', 'surrogate U+D800'],
    ['admin\uE000', 'private-use U+E000'],
    ['ad\uFE0Fmin', 'invisible U+FE0F'],
    ['café™', 'not-identifier U+2122'], // symbol
    ['\uFB01', 'not-identifier U+FB01'], // compatibility ligature
    ['ada\u2019s', 'not-identifier U+2019'], // non-ASCII punctuation
    ['🔑', 'not-identifier U+1F511'],
    ['a·b', 'context U+00B7'], // middle dot only between two l
    ['٣۳', 'context U+0663'], // Arabic-Indic and extended Arabic-Indic digits mixed
    ['x\u1113', 'not-identifier U+1113'], // old Hangul jamo (NFC composes modern jamo into syllables first)
    ['\u0301x', 'leading-mark U+0301'],
  ])('%j is refused: %s', (name, expected) => {
    expect(problemOf(checkUsername(name, 200))).toBe(expected);
  });

  it.each(['ada', 'ada@example.com', 'Ada.Lovelace-1', 'juliet', 'fußball', 'π', 'σας', 'l·l', 'שלום', 'שלום1', 'مرحبا', 'می\u200Cخواهم', '田中', 'Zoë'])(
    'accepts %j',
    (name) => {
      expect(problemOf(checkUsername(name, 200))).toBe('ok');
    },
  );

  it('applies the Bidi Rule to names with right-to-left text', () => {
    expect(problemOf(checkUsername('abcשלום', 200))).toBe('BIDI_RULE'); // L and R mixed
    expect(problemOf(checkUsername('1שלום', 200))).toBe('BIDI_RULE'); // must start with R/AL
    expect(problemOf(checkUsername('abc٣', 200))).toBe('BIDI_RULE'); // AN makes it RTL: must start with R/AL
    expect(problemOf(checkUsername('ש1٣', 200))).toBe('BIDI_RULE'); // EN and AN together
    expect(problemOf(checkUsername('ש-', 200))).toBe('BIDI_RULE'); // must end in R, AL, EN or AN
    expect(problemOf(checkUsername('ש-1', 200))).toBe('ok');
  });

  it('refuses empty and overlong names', () => {
    expect(problemOf(checkUsername('  ', 200))).toBe('EMPTY');
    expect(checkUsername('a'.repeat(201), 200).problem).toEqual({ code: 'TOO_LONG', max: 200, length: 201 });
  });

  it('keys names stored before these rules too (a total function), ignorables removed', () => {
    expect(usernameKey('Ad\u200Bmin')).toBe('admin');
    expect(usernameKey('ada lovelace')).toBe('ada lovelace');
  });
});

describe('the printable-ASCII fast path', () => {
  it('gives the same keys and verdicts as the general path (forced by an ignorable character, which keys drop)', () => {
    const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
    fc.assert(
      fc.property(ascii, (s) => {
        expect(displayNameKey(s)).toBe(displayNameKey(`${s}\u200B`));
        expect(usernameKey(s.trim())).toBe(usernameKey(`${s.trim()}\u200B`));
        // A valid ASCII display name stays valid with an emoji after it (the general path).
        if (!checkDisplayName(s, 200).problem) expect(checkDisplayName(`${s} 🔑`, 250).problem).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('messages', () => {
  it('name the code point and its kind in English and German, never the raw character', () => {
    const p = checkDisplayName('abc\u202Edef', 200).problem!;
    expect(describeNameProblem(p, 'en')).toBe('must not contain U+202E (a control of the writing direction)');
    expect(describeNameProblem(p, 'de')).toBe('darf U+202E nicht enthalten (ein Steuerzeichen der Schreibrichtung)');
    expect(describeNameProblem(p, 'en')).not.toContain('\u202E');
  });
});
