// Lists are searches with pages: the page a request asks for, its
// default and maximum, and the text filters every list shares. Pure rules; the
// read model (src/store) turns them into SQL.
import { violation, type FieldViolation } from './errors/keyhold-error.js';

/** Entries on a page when the request names no limit. */
export const DEFAULT_PAGE_LIMIT = 100;
/** The most entries one answer holds: a larger limit is answered with this many (not refused). */
export const MAX_PAGE_LIMIT = 1000;
/** Filters per request, and characters per filter value: a search is not a way to send megabytes. */
export const MAX_QUERIES = 20;
export const MAX_QUERY_TEXT = 200;
/**
 * The most bytes of stored JSON (apps' configurations, events' payloads) one
 * list answer carries. A count alone does not bound an answer: one app's
 * configuration may hold ~600,000 characters (oidc/bounds.ts), so 1,000 of them
 * were ~600 MB. 3 MiB keeps an answer under the 4 MiB that gRPC clients
 * (grpc-go, grpc-js) accept by default, with room for the message around it.
 */
export const MAX_ANSWER_BYTES = 3 * 1024 * 1024;

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
  /** Entries of the page left out because the answer reached MAX_ANSWER_BYTES (lists that can hold large entries). */
  leftOut?: number;
}

/**
 * How many leading entries of a page fit in `budget` bytes — always at least
 * one, so a single entry larger than the budget (it cannot be, by the bounds)
 * is still readable and a page is never empty while matches remain.
 */
export function entriesWithin(sizes: readonly number[], budget: number = MAX_ANSWER_BYTES): number {
  let used = 0;
  for (let i = 0; i < sizes.length; i++) {
    used += sizes[i]!;
    if (used > budget && i > 0) return i;
  }
  return sizes.length;
}

/**
 * The 400 for an offset-paged list whose page does not fit in one answer: a
 * shorter page would make clients that step by `limit` skip entries, so the
 * request is refused and says which limit fits.
 */
export function pageTooLarge(what: { en: string; de: string }, offset: number, fitting: number): FieldViolation[] {
  const mib = MAX_ANSWER_BYTES / (1024 * 1024);
  return [
    violation('query.limit', {
      en: `is too large: the ${what.en} from offset ${offset} hold more than ${mib} MiB; at most ${fitting} fit in one answer, ask for limit ${fitting}`,
      de: `ist zu groß: die ${what.de} ab Offset ${offset} umfassen mehr als ${mib} MiB; höchstens ${fitting} passen in eine Antwort, fragen Sie mit limit ${fitting}`,
    }),
  ];
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

/** ListEvents' filters (the audit log); all must match. */
export interface EventSearch {
  /** Orgs whose events the caller may read; undefined: every event. */
  orgIds: readonly string[] | undefined;
  /** The cursor: a global position, exclusive; 0: none. */
  after: bigint;
  asc: boolean;
  limit: number;
  /** The answer's byte budget (default MAX_ANSWER_BYTES): fewer events than `limit` when their payloads are large. */
  maxBytes?: number;
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
