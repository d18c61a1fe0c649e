// Names people choose — usernames, app, project and org names, personal names —
// checked and compared by Keyhold itself, never by the database's locale (a
// PostgreSQL created with LC_CTYPE=C lowercases ASCII only, so `lower()` there
// made "Café" and "CAFÉ" two names).
//
// Two profiles, one place:
// - USERNAMES follow RFC 8265's UsernameCaseMapped profile of the PRECIS
//   IdentifierClass (RFC 8264): width mapping, only IdentifierClass code points
//   (no spaces, no symbols or non-ASCII punctuation, no compatibility forms),
//   the contextual rules of RFC 5892 Appendix A, toLowerCase(), NFC and the
//   Bidi Rule of RFC 5893 when the name holds right-to-left text.
// - DISPLAY NAMES (app, project, org, personal and token names) allow spaces,
//   symbols and emoji, but no character that hides or reorders text:
//   controls, format and default-ignorable characters, bidi controls, line
//   and paragraph separators, noncharacters, private use, unassigned code
//   points, lone surrogates — and something visible must remain.
//
// Each name has a KEY: the form two names are compared in (uniqueness and
// lookups). The display form is what was sent, trimmed and in NFC.
// Everything here is pure and uses only JavaScript's Unicode primitives (the
// ICU of the running Node), so a key never depends on the database.

import type { Language } from '../i18n/language.js';
import { localize, type Texts } from '../i18n/text.js';

export type CharacterKind =
  | 'control'
  | 'surrogate'
  | 'noncharacter'
  | 'unassigned'
  | 'private-use'
  | 'bidi-control'
  | 'line-separator'
  | 'invisible'
  | 'space'
  | 'not-identifier'
  | 'context'
  | 'leading-mark';

export type NameProblem =
  | { code: 'EMPTY' }
  | { code: 'TOO_LONG'; max: number; length: number }
  | { code: 'CHARACTER'; kind: CharacterKind; codePoint: string }
  | { code: 'NOTHING_VISIBLE' }
  | { code: 'BIDI_RULE' }
  | { code: 'NORMALIZED_TOO_LONG' };

export interface CheckedName {
  /** The display form to store: trimmed, NFC (usernames also width-mapped). Its key: displayNameKey / usernameKey. */
  value: string;
  /** The first problem, if the name is refused. */
  problem?: NameProblem;
}

/** Length in Unicode code points, what a person counts as characters. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** "U+202E": how a refused character is named in an error (never the raw character). */
export function codePointName(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

// A key is stored in a unique btree index, whose entries PostgreSQL caps at
// ~2.7 kB. NFKC can grow a name (U+FDFA alone becomes 18 characters), so a
// key past this many UTF-8 bytes is refused instead of failing the insert.
export const MAX_KEY_BYTES = 1000;

function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

// ---------------------------------------------------------------------------
// Character classes (Unicode property escapes; Node's ICU data).

const CONTROL = /^\p{Cc}$/u;
const SURROGATE = /^\p{Cs}$/u;
const NONCHARACTER = /^\p{Noncharacter_Code_Point}$/u;
const UNASSIGNED = /^\p{Cn}$/u;
const PRIVATE_USE = /^\p{Co}$/u;
const LINE_SEPARATOR = /^[\p{Zl}\p{Zp}]$/u;
const BIDI_CONTROL = /^\p{Bidi_Control}$/u;
// Format characters and default-ignorables render as nothing (or change how
// neighbours render). U+2800 BRAILLE PATTERN BLANK is a symbol that renders as
// a blank: the usual way to make a name that looks empty.
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]$/u;
const VARIATION_SELECTOR = /^\p{Variation_Selector}$/u;
const MARK = /^\p{M}$/u;
const VISIBLE_BASE = /^[\p{L}\p{N}\p{S}\p{P}]$/u;
const ZWNJ = 0x200c;
const ZWJ = 0x200d;

// Anything that needs the per-character walk below. Most names (ASCII, Latin,
// CJK) match none of it and take the fast path.
const NEEDS_SCAN = /[\p{Cc}\p{Cs}\p{Cn}\p{Co}\p{Zl}\p{Zp}\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}\u2800]/u;
const HAS_VISIBLE = /[\p{L}\p{N}\p{S}\p{P}]/u;

// Combining class 9 (virama), from Unicode 14's UnicodeData (JavaScript has no
// property escape for combining classes): RFC 5892 A.1/A.2 allow ZWNJ and ZWJ
// right after one, where Indic scripts use them to choose a conjunct form.
const VIRAMA =
  /^[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D3B\u0D3C\u0D4D\u0DCA\u0E3A\u0EBA\u0F84\u1039\u103A\u1714\u1715\u1734\u17D2\u1A60\u1B44\u1BAA\u1BAB\u1BF2\u1BF3\u2D7F\uA806\uA82C\uA8C4\uA953\uA9C0\uAAF6\uABED\u{10A3F}\u{11046}\u{11070}\u{1107F}\u{110B9}\u{11133}\u{11134}\u{111C0}\u{11235}\u{112EA}\u{1134D}\u{11442}\u{114C2}\u{115BF}\u{1163F}\u{116B6}\u{1172B}\u{11839}\u{1193D}\u{1193E}\u{119E0}\u{11A34}\u{11A47}\u{11A99}\u{11C3F}\u{11D44}\u{11D45}\u{11D97}]$/u;

// Letters of the cursive (joining) scripts, where ZWNJ between two letters
// breaks a ligature (Persian "می‌خواهم"). RFC 5892 A.1 states this with the
// Joining_Type property, which JavaScript does not expose; the scripts whose
// letters join stand in for it.
const JOINING_LETTER =
  /^(?=\p{L})[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Mandaic}\p{Script=Manichaean}\p{Script=Psalter_Pahlavi}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}\p{Script=Sogdian}\p{Script=Old_Uyghur}\p{Script=Phags_Pa}\p{Script=Chorasmian}]$/u;

const EXTENDED_PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const EMOJI_MODIFIER = /^\p{Emoji_Modifier}$/u;
// An emoji tag sequence (subdivision flags such as England's): U+1F3F4, tag
// letters or digits, CANCEL TAG. The only place tag characters are accepted.
const EMOJI_TAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]+\u{E007F}/gu;

const cpAt = (cps: readonly string[], i: number): string => cps[i] ?? '';

/** The code point before i, skipping combining marks (A.1's "transparent" joining type). */
function letterBefore(cps: readonly string[], i: number): string {
  let j = i - 1;
  while (j >= 0 && MARK.test(cps[j]!) && !VARIATION_SELECTOR.test(cps[j]!)) j--;
  return cpAt(cps, j);
}

function letterAfter(cps: readonly string[], i: number): string {
  let j = i + 1;
  while (j < cps.length && MARK.test(cps[j]!) && !VARIATION_SELECTOR.test(cps[j]!)) j++;
  return cpAt(cps, j);
}

/** RFC 5892 A.1 (ZWNJ) and A.2 (ZWJ). */
function joinControlAllowed(cps: readonly string[], i: number, cp: number): boolean {
  if (VIRAMA.test(cpAt(cps, i - 1))) return true;
  return cp === ZWNJ && JOINING_LETTER.test(letterBefore(cps, i)) && JOINING_LETTER.test(letterAfter(cps, i));
}

/** A ZWJ inside an emoji ZWJ sequence (👩‍💻): pictograph (+ modifier / VS16) ZWJ pictograph. */
function emojiJoinerAllowed(cps: readonly string[], i: number): boolean {
  let j = i - 1;
  if (cpAt(cps, j) === '\uFE0F' || EMOJI_MODIFIER.test(cpAt(cps, j))) j--;
  return EXTENDED_PICTOGRAPHIC.test(cpAt(cps, j)) && EXTENDED_PICTOGRAPHIC.test(cpAt(cps, i + 1));
}

/** Indexes of the tag characters that belong to an emoji tag sequence. */
function emojiTagPositions(cps: readonly string[]): Set<number> {
  const allowed = new Set<number>();
  const text = cps.join('');
  if (!text.includes('\u{1F3F4}')) return allowed;
  // Map UTF-16 offsets of matches back to code point indexes.
  const indexAt = new Map<number, number>();
  let offset = 0;
  cps.forEach((c, i) => {
    indexAt.set(offset, i);
    offset += c.length;
  });
  for (const m of text.matchAll(EMOJI_TAG_SEQUENCE)) {
    const first = indexAt.get(m.index!)!;
    const count = charLength(m[0]);
    for (let k = first + 1; k < first + count; k++) allowed.add(k);
  }
  return allowed;
}

/**
 * The kind of a character no name may hold where it stands, or undefined.
 * Shared by both profiles: these characters hide, reorder or corrupt text.
 */
function hiddenCharacterKind(cps: readonly string[], i: number, tags: ReadonlySet<number>): CharacterKind | undefined {
  const ch = cps[i]!;
  if (CONTROL.test(ch)) return 'control';
  if (SURROGATE.test(ch)) return 'surrogate';
  if (NONCHARACTER.test(ch)) return 'noncharacter';
  if (UNASSIGNED.test(ch)) return 'unassigned';
  if (PRIVATE_USE.test(ch)) return 'private-use';
  if (LINE_SEPARATOR.test(ch)) return 'line-separator';
  if (BIDI_CONTROL.test(ch)) return 'bidi-control';
  const cp = ch.codePointAt(0)!;
  if (cp === ZWJ || cp === ZWNJ) {
    return joinControlAllowed(cps, i, cp) || (cp === ZWJ && emojiJoinerAllowed(cps, i)) ? undefined : 'invisible';
  }
  if (VARIATION_SELECTOR.test(ch)) {
    // A variation selector picks a glyph for the character before it (emoji or
    // text style, an ideograph's variant): allowed once, after a visible one.
    return VISIBLE_BASE.test(cpAt(cps, i - 1)) ? undefined : 'invisible';
  }
  if (tags.has(i)) return undefined;
  if (INVISIBLE.test(ch)) return 'invisible';
  if (i === 0 && MARK.test(ch)) return 'leading-mark';
  return undefined;
}

function characterProblem(kind: CharacterKind, ch: string): NameProblem {
  return { code: 'CHARACTER', kind, codePoint: codePointName(ch.codePointAt(0)!) };
}

// ---------------------------------------------------------------------------
// Mappings

// Printable ASCII: already NFC and NFKC, nothing hidden, case folding is
// toLowerCase, and a key no longer than the name. Most names; every projection
// computes a key, so this path is kept short.
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

// Characters whose decomposition is <wide> or <narrow> (UAX #11): full-width
// ASCII, half-width katakana and hangul, the ideographic space. NFKC of each
// alone is its decomposition mapping.
const WIDTH_CHARACTER = /[\u3000\uFF01-\uFFBE\uFFC2-\uFFC7\uFFCA-\uFFCF\uFFD2-\uFFD7\uFFDA-\uFFDC\uFFE0-\uFFE6\uFFE8-\uFFEE]/gu;

/** RFC 8265 width mapping rule: full- and half-width forms to their decompositions. */
export function widthMap(s: string): string {
  return s.replace(WIDTH_CHARACTER, (c) => c.normalize('NFKC'));
}

// Stripped from keys only. New names holding them are refused anyway; names
// stored before these rules may hold them, and must then collide with the name
// they imitate ("ad\u200Bmin" with "admin").
const IGNORABLE_GLOBAL = /\p{Default_Ignorable_Code_Point}/gu;
const WHITE_SPACE_RUN = /\s+/gu;

/**
 * Default case folding built from toUpperCase/toLowerCase (JavaScript has no
 * casefold; both are locale-independent). Applied twice because one round
 * leaves "ẞ" at "ß", which a second turns into "ss". Compared over every code
 * point with Python's str.casefold (Unicode 14), this folds alike everything
 * casefold folds alike, and additionally folds the dotless ı with i.
 */
function caseFold(s: string): string {
  const once = s.toUpperCase().toLowerCase();
  return once.toUpperCase().toLowerCase();
}

/**
 * The key of a display name (apps): NFKC_Casefold — compatibility forms
 * (full-width, ligatures, mathematical letters) and case folded, default
 * ignorables removed — with every run of white space one space. NFKC is
 * stricter than NFC + width mapping: more look-alikes share a key.
 */
export function displayNameKey(name: string): string {
  if (PRINTABLE_ASCII.test(name)) return name.toLowerCase().replace(WHITE_SPACE_RUN, ' ').trim();
  const folded = caseFold(name.replace(IGNORABLE_GLOBAL, '').normalize('NFKC')).normalize('NFKC');
  return folded.replace(WHITE_SPACE_RUN, ' ').trim();
}

/** The key of a username: UsernameCaseMapped's output (width map, toLowerCase, NFC), ignorables removed. */
export function usernameKey(username: string): string {
  if (PRINTABLE_ASCII.test(username)) return username.trim().toLowerCase();
  return widthMap(username.trim().replace(IGNORABLE_GLOBAL, '')).toLowerCase().normalize('NFC');
}

// ---------------------------------------------------------------------------
// Display names

/** A display name: trimmed, NFC; refused when it holds a hidden character, shows nothing or is too long. */
export function checkDisplayName(raw: string, max: number): CheckedName {
  const trimmed = raw.trim();
  // The common case, on AddOIDCApp's hot path: no normalization, scan or key needed.
  if (PRINTABLE_ASCII.test(trimmed)) {
    if (trimmed.length === 0) return { value: trimmed, problem: { code: 'EMPTY' } };
    return trimmed.length > max ? { value: trimmed, problem: { code: 'TOO_LONG', max, length: trimmed.length } } : { value: trimmed };
  }
  const value = trimmed.normalize('NFC');
  const done = (problem?: NameProblem): CheckedName => (problem ? { value, problem } : { value });
  if (value.length === 0) return done({ code: 'EMPTY' });
  const problem = hiddenCharacterProblem(value);
  if (problem) return done(problem);
  if (!HAS_VISIBLE.test(value)) return done({ code: 'NOTHING_VISIBLE' });
  const length = charLength(value);
  if (length > max) return done({ code: 'TOO_LONG', max, length });
  if (utf8Length(displayNameKey(value)) > MAX_KEY_BYTES) return done({ code: 'NORMALIZED_TOO_LONG' });
  return done();
}

/** The first hidden character of a text, as a problem (no other checks). */
export function hiddenCharacterProblem(text: string): NameProblem | undefined {
  if (!NEEDS_SCAN.test(text)) return undefined;
  const cps = [...text];
  const tags = emojiTagPositions(cps);
  for (let i = 0; i < cps.length; i++) {
    const kind = hiddenCharacterKind(cps, i, tags);
    if (kind) return characterProblem(kind, cps[i]!);
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Usernames: PRECIS IdentifierClass (RFC 8264 §9) after width mapping.

// RFC 5892 §2.6 exceptions.
const EXCEPTION_PVALID = new Set([0x00df, 0x03c2, 0x06fd, 0x06fe, 0x0f0b, 0x3007]);
const EXCEPTION_DISALLOWED = new Set([0x0640, 0x07fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b]);
const ARABIC_INDIC_DIGIT = /[\u0660-\u0669]/u;
const EXTENDED_ARABIC_INDIC_DIGIT = /[\u06F0-\u06F9]/u;
const GREEK = /^\p{Script=Greek}$/u;
const HEBREW = /^\p{Script=Hebrew}$/u;
const KANA_OR_HAN = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

/** RFC 5892 Appendix A.3–A.9 (CONTEXTO). */
function contextOAllowed(cps: readonly string[], i: number, cp: number, whole: string): boolean {
  switch (cp) {
    case 0x00b7: // MIDDLE DOT: between two l (Catalan "l·l")
      return /^[lL]$/.test(cpAt(cps, i - 1)) && /^[lL]$/.test(cpAt(cps, i + 1));
    case 0x0375: // GREEK LOWER NUMERAL SIGN: before a Greek character
      return GREEK.test(cpAt(cps, i + 1));
    case 0x05f3: // HEBREW GERESH, GERSHAYIM: after a Hebrew character
    case 0x05f4:
      return HEBREW.test(cpAt(cps, i - 1));
    case 0x30fb: // KATAKANA MIDDLE DOT: with kana or Han in the name
      return KANA_OR_HAN.test(whole.replace(/\u30FB/gu, ''));
    default:
      if (cp >= 0x0660 && cp <= 0x0669) return !EXTENDED_ARABIC_INDIC_DIGIT.test(whole);
      if (cp >= 0x06f0 && cp <= 0x06f9) return !ARABIC_INDIC_DIGIT.test(whole);
      return false;
  }
}
const CONTEXTO = /^[\u00B7\u0375\u05F3\u05F4\u30FB\u0660-\u0669\u06F0-\u06F9]$/u;

const OLD_HANGUL_JAMO = /^[\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF]$/u;
const LETTER_DIGITS = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u;
const SPACE = /^\p{Zs}$/u;

/** The IdentifierClass verdict for the code point at i: undefined when allowed. */
function identifierProblem(cps: readonly string[], i: number, whole: string, tags: ReadonlySet<number>): CharacterKind | undefined {
  const ch = cps[i]!;
  const cp = ch.codePointAt(0)!;
  if (EXCEPTION_PVALID.has(cp)) return undefined;
  if (EXCEPTION_DISALLOWED.has(cp)) return 'not-identifier';
  if (CONTEXTO.test(ch)) return contextOAllowed(cps, i, cp, whole) ? undefined : 'context';
  if (cp >= 0x21 && cp <= 0x7e) return undefined; // ASCII7
  // Controls, separators, invisibles, join controls out of context…: named precisely.
  const hidden = hiddenCharacterKind(cps, i, tags);
  if (hidden) return hidden;
  if (cp === ZWJ || cp === ZWNJ) return undefined; // CONTEXTJ, and its context held
  if (VARIATION_SELECTOR.test(ch)) return 'invisible'; // default-ignorable: always disallowed here
  if (OLD_HANGUL_JAMO.test(ch)) return 'not-identifier';
  if (SPACE.test(ch)) return 'space';
  if (ch.normalize('NFKC') !== ch) return 'not-identifier'; // HasCompat
  if (LETTER_DIGITS.test(ch)) return undefined;
  return 'not-identifier'; // other letters/digits, symbols, punctuation
}

// ---------------------------------------------------------------------------
// RFC 5893 Bidi Rule, for usernames holding right-to-left text. JavaScript does
// not expose Bidi_Class, so it is derived for the code points an
// IdentifierClass name can hold: right-to-left letters and digits by script,
// Arabic-Indic digits (AN), European digits (EN), ASCII punctuation by its
// class, marks as NSM, join controls as BN, everything else L. Checked against
// Python's unicodedata (Unicode 14): identical except modifier letters with
// class ON (treated as L: stricter) and a few marks of class L (treated as NSM).

type BidiClass = 'L' | 'R' | 'AN' | 'EN' | 'ES' | 'CS' | 'ET' | 'ON' | 'BN' | 'NSM';

const RTL_LETTER =
  /^(?=[\p{L}\p{Nd}])[\p{Script=Adlam}\p{Script=Arabic}\p{Script=Avestan}\p{Script=Chorasmian}\p{Script=Cypriot}\p{Script=Elymaic}\p{Script=Hanifi_Rohingya}\p{Script=Hatran}\p{Script=Hebrew}\p{Script=Imperial_Aramaic}\p{Script=Inscriptional_Pahlavi}\p{Script=Inscriptional_Parthian}\p{Script=Kharoshthi}\p{Script=Lydian}\p{Script=Mandaic}\p{Script=Manichaean}\p{Script=Mende_Kikakui}\p{Script=Meroitic_Cursive}\p{Script=Meroitic_Hieroglyphs}\p{Script=Nabataean}\p{Script=Nko}\p{Script=Old_Hungarian}\p{Script=Old_North_Arabian}\p{Script=Old_Sogdian}\p{Script=Old_South_Arabian}\p{Script=Old_Turkic}\p{Script=Old_Uyghur}\p{Script=Palmyrene}\p{Script=Phoenician}\p{Script=Psalter_Pahlavi}\p{Script=Samaritan}\p{Script=Sogdian}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Yezidi}]$/u;
const ARABIC_NUMBER = /^[\u0660-\u0669\u{10D30}-\u{10D39}\u{10E60}-\u{10E7E}]$/u;
const EUROPEAN_NUMBER = /^[0-9\u06F0-\u06F9]$/u;
const ASCII_BIDI: Readonly<Record<string, BidiClass>> = { '+': 'ES', '-': 'ES', ',': 'CS', '.': 'CS', '/': 'CS', ':': 'CS', '#': 'ET', $: 'ET', '%': 'ET' };
const NSM = /^[\p{Mn}\p{Me}]$/u;

function bidiClass(ch: string): BidiClass {
  const cp = ch.codePointAt(0)!;
  if (cp === ZWJ || cp === ZWNJ) return 'BN';
  if (NSM.test(ch)) return 'NSM';
  if (ARABIC_NUMBER.test(ch)) return 'AN';
  if (EUROPEAN_NUMBER.test(ch)) return 'EN';
  if (cp < 0x80) return /[A-Za-z]/.test(ch) ? 'L' : (ASCII_BIDI[ch] ?? 'ON');
  return RTL_LETTER.test(ch) ? 'R' : 'L';
}

/** RFC 5893 §2, conditions 1–4 (a name with R, AL or AN is an "RTL label"). */
function bidiRuleHolds(cps: readonly string[]): boolean {
  const classes = cps.map(bidiClass);
  if (!classes.some((c) => c === 'R' || c === 'AN')) return true;
  if (classes[0] !== 'R') return false; // 1: starts with R or AL
  const allowed: ReadonlySet<BidiClass> = new Set(['R', 'AN', 'EN', 'ES', 'CS', 'ET', 'ON', 'BN', 'NSM']);
  if (!classes.every((c) => allowed.has(c))) return false; // 2: no L
  let end = classes.length - 1;
  while (end > 0 && classes[end] === 'NSM') end--;
  if (!['R', 'EN', 'AN'].includes(classes[end]!)) return false; // 3: ends in R, AL, EN or AN (+ NSM)
  return !(classes.includes('EN') && classes.includes('AN')); // 4: not both EN and AN
}

/**
 * A username after RFC 8265 UsernameCaseMapped: the value keeps the case that
 * was sent (width-mapped, NFC), the key is the profile's output.
 */
export function checkUsername(raw: string, max: number): CheckedName {
  const value = widthMap(raw.trim()).normalize('NFC');
  const done = (problem?: NameProblem): CheckedName => (problem ? { value, problem } : { value });
  if (value.length === 0) return done({ code: 'EMPTY' });
  if (!/^[\x21-\x7E]+$/.test(value)) {
    const cps = [...value];
    const tags = new Set<number>(); // no emoji in usernames
    for (let i = 0; i < cps.length; i++) {
      const kind = identifierProblem(cps, i, value, tags);
      if (kind) return done(characterProblem(kind, cps[i]!));
    }
    if (!bidiRuleHolds(cps)) return done({ code: 'BIDI_RULE' });
  }
  const length = charLength(value);
  if (length > max) return done({ code: 'TOO_LONG', max, length });
  if (utf8Length(usernameKey(value)) > MAX_KEY_BYTES) return done({ code: 'NORMALIZED_TOO_LONG' });
  return done();
}

// ---------------------------------------------------------------------------
// Messages: fragments that follow a field name ("username must not …").

const KIND_TEXT: Readonly<Record<CharacterKind, Texts<unknown>>> = {
  control: { en: 'a control character', de: 'ein Steuerzeichen' },
  surrogate: { en: 'half of a UTF-16 pair, not a character', de: 'eine halbe UTF-16-Einheit, kein Zeichen' },
  noncharacter: { en: 'a noncharacter', de: 'ein Nichtzeichen' },
  unassigned: { en: 'a code point Unicode has not assigned', de: 'ein von Unicode nicht vergebener Codepunkt' },
  'private-use': { en: 'a private-use character', de: 'ein Zeichen zur privaten Nutzung' },
  'bidi-control': { en: 'a control of the writing direction', de: 'ein Steuerzeichen der Schreibrichtung' },
  'line-separator': { en: 'a line or paragraph separator', de: 'ein Zeilen- oder Absatztrenner' },
  invisible: { en: 'an invisible character', de: 'ein unsichtbares Zeichen' },
  space: { en: 'a space', de: 'ein Leerzeichen' },
  'not-identifier': { en: 'a character user names cannot hold', de: 'ein Zeichen, das Benutzernamen nicht enthalten dürfen' },
  context: { en: 'a character not allowed in this position', de: 'ein an dieser Stelle nicht erlaubtes Zeichen' },
  'leading-mark': { en: 'a combining mark at the start', de: 'ein kombinierendes Zeichen am Anfang' },
};
const UNKNOWN_KIND: Texts<unknown> = { en: 'a character that is not allowed', de: 'ein nicht erlaubtes Zeichen' };

/** The kind of a refused character in words ("a control of the writing direction"). */
export function characterKindText(kind: CharacterKind, lang: Language): string {
  return localize(Object.hasOwn(KIND_TEXT, kind) ? KIND_TEXT[kind] : UNKNOWN_KIND, lang, undefined);
}

/** A problem as a fragment after the field name ("must not contain U+202E (…)"), in every language. */
export function nameProblemTexts(p: NameProblem): Texts<unknown> {
  switch (p.code) {
    case 'EMPTY':
      return { en: 'must not be empty', de: 'darf nicht leer sein' };
    case 'TOO_LONG':
      return { en: `must be at most ${p.max} characters`, de: `darf höchstens ${p.max} Zeichen lang sein` };
    case 'CHARACTER':
      return {
        en: () => `must not contain ${p.codePoint} (${characterKindText(p.kind, 'en')})`,
        de: () => `darf ${p.codePoint} nicht enthalten (${characterKindText(p.kind, 'de')})`,
      };
    case 'NOTHING_VISIBLE':
      return { en: 'must contain at least one visible character', de: 'muss mindestens ein sichtbares Zeichen enthalten' };
    case 'BIDI_RULE':
      return {
        en: 'mixes right-to-left script with other text in a way that can display misleadingly (RFC 5893)',
        de: 'mischt Schrift von rechts nach links mit anderer so, dass die Anzeige täuschen kann (RFC 5893)',
      };
    case 'NORMALIZED_TOO_LONG':
      return { en: 'is too long once normalized', de: 'ist nach der Normalisierung zu lang' };
  }
}

/** nameProblemTexts in one language. */
export function describeNameProblem(p: NameProblem, lang: Language): string {
  return localize(nameProblemTexts(p), lang, undefined);
}
