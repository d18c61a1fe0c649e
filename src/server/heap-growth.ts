// How far V8 lets the old generation grow before its next full collection.
// By default it sizes the next limit from what survived the last one and from
// how fast the program allocates: under load (a burst of logins, 64 callers)
// that is several times the live heap, and the pages it took stay with the
// process. Keyhold's live heap is small (caches bounded by entry counts), so
// a growth of at most 1.5× the surviving heap per collection keeps the peak
// RSS near what is live, with no hard limit: the heap still grows as far as
// what is live needs.
//
// Measured (npm run bench, PostgreSQL, c=64, all 13 scenarios in one server,
// two runs each, in both orders): the highest peak RSS 617 and 654 MiB with
// V8's default, 382 and 387 MiB with 1.5×; no scenario slower (the password
// login 54 and 56/s against 65 and 68/s). docs/performance.md, "Memory under load".
//
// V8 reads the factor at each full collection, so it takes effect when set at
// start-up (Node 20 has no process.execve to restart with a flag). An operator's
// own --heap-growing-percent (command line or NODE_OPTIONS) wins.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

const GIVEN = /^--heap[-_]growing[-_]percent(=|$)/;

/** Whether the operator gave a growth factor, on the command line or in NODE_OPTIONS. */
export const heapGrowthGiven = (execArgv: readonly string[], nodeOptions: string): boolean => [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => GIVEN.test(arg));

/** Sets the growth factor unless the operator gave one; whether it was set. */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (heapGrowthGiven(execArgv, nodeOptions)) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
