// An append's events insert and the read-model statement that only moves a
// version on, as ONE statement: the update runs as a data-modifying WITH beside
// the insert (PostgreSQL runs it to completion, in the same snapshot and
// transaction). A login appends two such events (the login recorded, its grant
// saved), each an insert and `update users set sequence`; merged, a password
// login sends two statements fewer (test/server/oidc/statement-counts.test.ts).
//
// Only a statement marked `alongside` (projections/projection.ts) is merged, and
// only when it is the append's one projection statement: such a statement cannot
// fail (so an events conflict stays the one error a stale decision meets) and
// reads nothing the insert writes (the sub-statements of one WITH do not see
// each other's rows); two of them on one row in one statement would leave
// either version, so an append of several events keeps them apart.
import { runsAlongside } from './projections/projection.js';
import type { SqlStatement } from './sql.js';

// Merged texts by (insert text, update text): a few dozen, each prepared once per connection.
const mergedTexts = new Map<string, string>();

/** `$n` → `$(n + offset)`: the update's parameters follow the insert's. */
const shifted = (text: string, offset: number) => text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);

/** The statements an append sends: the insert first (its rows are the append's answer), then the projections'. */
export function appendStatements(insert: SqlStatement, projected: readonly SqlStatement[]): SqlStatement[] {
  const only = projected.length === 1 ? projected[0]! : undefined;
  if (!only || !runsAlongside(only)) return [insert, ...projected];
  const key = `${insert.text}\u0000${only.text}`;
  let text = mergedTexts.get(key);
  if (text === undefined) {
    text = `with moved as (${shifted(only.text, insert.params.length)}), inserted as (${insert.text}) select * from inserted`;
    mergedTexts.set(key, text);
  }
  return [{ text, params: [...insert.params, ...only.params] }];
}
