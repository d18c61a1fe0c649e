// One page of large rows without reading more than the page may hold (issue 19):
// rows come in chunks in the list's order, and the page ends at `limit` rows or
// once their size passes `budget` bytes, whichever comes first. Each next chunk is
// sized by the rows seen so far and at most twice the last, so small rows take a few
// queries and large ones do not make the process hold much more than the budget.

/** The first chunk: enough for small rows to need one more query at most. */
const FIRST_CHUNK = 25;

/**
 * Takes rows from `chunk(after, count)` — `after` the last row taken (undefined:
 * the page's start), `count` how many to read — until `limit` rows or `budget`
 * bytes by `sizeOf`. The first row always comes, however large.
 */
export async function takeWithinBudget<R>(
  limit: number,
  budget: number,
  sizeOf: (row: R) => number,
  chunk: (after: R | undefined, count: number) => Promise<R[]>,
): Promise<R[]> {
  const taken: R[] = [];
  let bytes = 0;
  let count = Math.min(limit, FIRST_CHUNK);
  for (;;) {
    const rows = await chunk(taken[taken.length - 1], count);
    for (const row of rows) {
      const size = sizeOf(row);
      if (taken.length > 0 && bytes + size > budget) return taken;
      taken.push(row);
      bytes += size;
      if (taken.length === limit) return taken;
    }
    if (rows.length < count) return taken;
    // As many as the rest of the budget holds at the average size so far (plus one to find the
    // end), but at most twice the last chunk: small rows first must not make one chunk read a
    // thousand large ones after them.
    const average = Math.max(1, bytes / taken.length);
    count = Math.max(1, Math.min(limit - taken.length, Math.floor((budget - bytes) / average) + 1, 2 * count));
  }
}

/** A JSON value's size in UTF-8 bytes: what it adds to an answer, near enough. */
export const jsonBytes = (value: unknown): number => (value === null || value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));
