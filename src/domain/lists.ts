// Lists are searches with pages (issue 19): the page a request asks for, its
// default and maximum, and the text filters every list shares. Pure rules; the
// read model (src/store) turns them into SQL.
import { violation, type FieldViolation } from './errors/keyhold-error.js';

/** Entries on a page when the request names no limit. */
export const DEFAULT_PAGE_LIMIT = 100;
/** The most entries one answer holds: a larger limit is answered with this many (not refused). */
export const MAX_PAGE_LIMIT = 1000;
/**
 * The most bytes of entries one page holds (issue 19: 300 large apps answered
 * 113.6 MiB). An app's configuration may be ~600 KB, and an event's payload
 * carries one, so 1000 entries alone bound nothing: a page of apps or events
 * ends early once its entries' stored JSON passes this (at least one entry
 * always comes). `details.totalResult` still counts every match; continue at
 * `offset + result.length` (events: after the last `sequence`).
 */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/** Filters per request, and characters per filter value: a search is not a way to send megabytes. */
export const MAX_QUERIES = 20;
export const MAX_QUERY_TEXT = 200;

export interface Page {
  offset: number;
  limit: number;
  /** true: oldest first; false: newest first. Ties by id, the same way. */
  asc: boolean;
}

/** A list's answer: one page of the matches, how many match in all, and what it was read from. */
export interface Listed<T> {
  items: T[];
  total: number;
  /** The position of the last event applied to the read model when it was read. */
  processedSequence: bigint;
  at: Date;
}

/** The page of a ListQuery: limit 0 → the default, above the maximum → the maximum; offset as a safe integer. */
export function pageOf(query: { offset: bigint; limit: number; asc: boolean } | undefined): Page {
  const limit = !query || query.limit === 0 ? DEFAULT_PAGE_LIMIT : Math.min(query.limit, MAX_PAGE_LIMIT);
  const offset = query ? Number(query.offset > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : query.offset) : 0;
  return { offset, limit, asc: query?.asc ?? false };
}

export const TEXT_METHODS = [
  'equals',
  'equalsIgnoreCase',
  'startsWith',
  'startsWithIgnoreCase',
  'contains',
  'containsIgnoreCase',
  'endsWith',
  'endsWithIgnoreCase',
] as const;
export type TextMethod = (typeof TEXT_METHODS)[number];

export interface TextFilter {
  value: string;
  method: TextMethod;
}

/** A text query's method by TEXT_QUERY_METHOD number (ZITADEL's order), or undefined for an unknown number. */
export const textMethodOf = (n: number): TextMethod | undefined => TEXT_METHODS[n];

/** The problems of a text filter as sent (`field` names its value, e.g. `queries[0].nameQuery.name`): a known method, a value that is text and not too long. */
export function textFilterProblems(field: string, value: string, method: number): FieldViolation[] {
  const problems: FieldViolation[] = [];
  if (textMethodOf(method) === undefined) {
    problems.push(violation(field.replace(/\.[^.]*$/, '.method'), { en: 'is not a known TEXT_QUERY_METHOD', de: 'ist keine bekannte TEXT_QUERY_METHOD' }));
  }
  if ([...value].length > MAX_QUERY_TEXT) {
    problems.push(violation(field, { en: `must be at most ${MAX_QUERY_TEXT} characters`, de: `darf höchstens ${MAX_QUERY_TEXT} Zeichen lang sein` }));
  }
  if (/[\u0000]|\p{Cs}/u.test(value)) {
    problems.push(violation(field, { en: 'must not contain NUL or half of a UTF-16 pair', de: 'darf kein NUL und keine halbe UTF-16-Einheit enthalten' }));
  }
  return problems;
}

export function tooManyQueries(count: number): FieldViolation[] {
  return count > MAX_QUERIES
    ? [violation('queries', { en: `must hold at most ${MAX_QUERIES} queries`, de: `darf höchstens ${MAX_QUERIES} Abfragen enthalten` })]
    : [];
}

/** A text query as sent: where it is in the request (for the 400), its value and method number. */
export interface SentText {
  field: string;
  value: string;
  method: number;
}

/** The filters of sent text queries, or their problems. */
export function textFilters(sent: readonly SentText[]): { filters: TextFilter[]; problems: FieldViolation[] } {
  const problems = sent.flatMap((t) => textFilterProblems(t.field, t.value, t.method));
  const filters = problems.length ? [] : sent.map((t) => ({ value: t.value, method: textMethodOf(t.method)! }));
  return { filters, problems };
}

/** ListEvents' filters (issue 19's audit log); all must match. */
export interface EventSearch {
  /** Orgs whose events the caller may read; undefined: every event. */
  orgIds: readonly string[] | undefined;
  /** The cursor: a global position, exclusive; 0: none. */
  after: bigint;
  asc: boolean;
  limit: number;
  editorUserId?: string;
  eventTypes: readonly string[];
  aggregateId?: string;
  aggregateTypes: readonly string[];
  resourceOwner?: string;
  since?: Date;
  until?: Date;
}

/** ListEvents' limit: 0 → the default, above the maximum → the maximum. */
export const eventLimit = (limit: number): number => (limit === 0 ? DEFAULT_PAGE_LIMIT : Math.min(limit, MAX_PAGE_LIMIT));
