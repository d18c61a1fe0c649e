// postinstall: repairs five defects of postgres.js 3.4.9 (the latest release)
// that a database outage exposes (test/reliability/outage*.test.ts), and makes
// its socket writes coarser (6) and its pool's queues cheap (8), for throughput. Upstream:
// porsager/postgres#1066, #1154, #1208 (open), PRs #1168, #1176, #1209.
//
// 1. A connection that closes while a small write waits for its setImmediate
//    clears the timer but keeps its id and the buffered bytes: later small
//    writes are never flushed (the next connect hangs until connect_timeout),
//    or the stale bytes are sent on the next socket ahead of its own traffic,
//    so answers reach the wrong queries.
// 2. A query issued on a connection whose socket is already gone (the ROLLBACK
//    that begin() sends after a statement failed because the backend died)
//    schedules a write to a null socket: an uncatchable TypeError from
//    setImmediate ends the process.
// 3. begin() gives up on a transaction as soon as its connection closes, but
//    the transaction's callback may still issue statements (and begin() its
//    ROLLBACK) through the same connection object — which the pool meanwhile
//    reconnects for other queries. Those statements then run outside any
//    transaction and their answers go to other callers. A transaction whose
//    connection closed now refuses further statements.
// 4. A query that was running when its socket closed stays the connection's
//    "current query" after it was rejected. On the next connect of that
//    connection object the server's answers are matched to it: a refusal at
//    startup (database not accepting connections) is kept for it instead of
//    failing the query that waits for the connection, which then hangs until
//    the database is back and fails with that stale error; a partial result
//    could leak into the next query. And a query the pool hands to the
//    connection between its socket's 'error' and 'close' events is never
//    settled at all: that request hangs forever. The connection now rejects
//    whatever is still pending when its socket closes, and forgets the dead
//    socket's query, result and error.
// 5. A connection that dies while it fetches the array types (its first query)
//    leaves that internal query's rejection unhandled, which also ends the
//    process (Node's default for unhandled rejections). The query that waited
//    for the connection is rejected anyway; the internal one needs a handler.
//
// 6. Not a defect but a cost: postgres.js writes its buffer to the socket as
//    soon as it holds 1 KiB, so the statements of one pipelined append (an
//    events insert with JSON payloads is over 1 KiB) went out in two or three
//    write(2) calls instead of one. On the 2-core benchmark machine a write to
//    PostgreSQL cost ~75 µs of Keyhold's CPU (bench/results: ~30% of the
//    server's time at ~1,100 appends/s, over TCP and Unix sockets alike). The
//    messages are now kept as a list and written, joined once, at the next
//    setImmediate: what one tick queues goes out in one write. There is no
//    size cut-off on purpose: a write that fills the socket's buffer returns
//    false, and a transaction's connection that reports itself full sends its
//    remaining statements one round trip each (index.js `handler` → `move(c,
//    full)` → one `c.reserved()` per ReadyForQuery). With group commit's large
//    transactions that happened after the first 64 KiB and cost more than all
//    the writes saved (strace: a write per statement). What one tick holds is
//    bounded by the pipeline limit (`max_pipeline`, src/store/database.ts).
//
// 7. reserve(), which sql.ts uses to send BEGIN, an append's statements and
//    COMMIT in one go, had the same gaps as begin() had before 2 and 3: a
//    connection that closed while reserved left the queries waiting in the
//    reservation's own queue unsettled forever, release() put the closed
//    connection among the open ones (with no socket: every later query on it
//    failed), reserve() on an ended pool waited forever, and a reservation
//    whose connection could not be opened was rejected but stayed on the wait
//    list: the next connection to open was handed to it and lost to the pool.
//    And a connection that closed while a reservation waited reopened for it
//    with the reservation as its initial query, taken off the wait list — but
//    an opening connection forgets a reservation given that way (it expects
//    it on the list), so the reservation waited forever
//    (test/reliability/outage-driver: appends hung in reserve()).
//
// 8. Not a defect but a cost that grows with uptime under load: the pool's
//    queues (queue.js) leave a shifted-out slot empty in their array until the
//    queue drains completely, and `remove` searched the whole array. Every
//    query moves its connection between queues (index.js `move` → remove), and
//    under steady load the busy queue never drains, so each query scanned every
//    slot ever pushed: `remove` was 8.5% of the server's CPU after 30 s of
//    introspection at c=64 (bench/profile.ts). The repaired one searches only
//    the live part, and a queue drops its dead slots once they are half of it.
//
// The fix: drop the timer and the buffer when the socket goes; refuse queries
// on a closed connection, or in a transaction whose connection closed, with
// the usual catchable connection error; never write to a null socket; handle
// the type fetch's rejection. Idempotent; warns and leaves the file alone
// when it does not look like the version this was written for. A file gets
// MARKER only when every repair of it applied: Keyhold checks for it before it
// connects and refuses an unrepaired driver (src/store/postgres-repairs.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const MARKER = '/* keyhold: patched (scripts/patch-postgres-js.mjs) */';

const connectionFixes = [
  [
    "    if (terminated)\n      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n",
    "    if (terminated)\n      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n\n" +
      "    if (!socket) // keyhold: the connection closed; report it instead of writing to a null socket\n" +
      "      return queryError(q, Errors.connection('CONNECTION_CLOSED', options)), true\n",
  ],
  [
    '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n',
    '  function nextWrite(fn) {\n    if (!socket) // keyhold: closed since the write was scheduled; its queries were rejected on close\n' +
      '      return chunk = nextWriteTimer = null, false\n' +
      '    const x = socket.write(chunk.length === 1 ? chunk[0] : Buffer.concat(chunk), fn) // keyhold: a list of messages (6)\n',
  ],
  // 6: one write per tick's worth of queries, joined once.
  [
    '    chunk = chunk ? Buffer.concat([chunk, x]) : Buffer.from(x)\n    if (fn || chunk.length >= 1024)\n',
    '    // keyhold (6): keep a copy (x may be the message builder\'s shared buffer); joined once per write\n' +
      '    chunk ? chunk.push(Buffer.from(x)) : (chunk = [Buffer.from(x)])\n' +
      '    if (fn)\n',
  ],
  // terminate() and closed(): forget the cancelled timer and the unsent bytes.
  ['    clearImmediate(nextWriteTimer)\n', '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null // keyhold\n', 2],
  [
    "    if (initial)\n      return reconnect()\n\n    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    '    if (initial) { // keyhold: the dead socket\'s query (the type fetch) must not take the answers of the next one\n' +
      "      query && query !== initial && queryError(query, Errors.connection('CONNECTION_CLOSED', options))\n" +
      '      query = results = errorResponse = null\n' +
      '      result = new Result()\n' +
      '      return reconnect()\n' +
      '    }\n\n' +
      '    // keyhold: also after a socket error — the pool may hand the connection queries between its\n' +
      "    // 'error' and 'close' events, and nothing else would ever settle them\n" +
      "    ;(query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n" +
      '    query = results = errorResponse = null // keyhold: settled above; forget it\n' +
      '    result = new Result()\n',
  ],
  [
    '        return fetchArrayTypes()\n',
    '        return fetchArrayTypes().catch(() => {}) // keyhold: the connection died; errored() rejected the waiting query\n',
  ],
];

const indexFixes = [
  // 7: reserve() — see the header.
  [
    '  async function reserve() {\n    const queue = Queue()\n',
    '  async function reserve() {\n' +
      '    if (ending) // keyhold: an ended pool has no connection to give; waiting would never end\n' +
      "      throw Errors.connection('CONNECTION_ENDED', options, options)\n" +
      '    const queue = Queue()\n' +
      '    let closedWith = null // keyhold\n',
  ],
  [
    '    queries.length && connect(c, queries.shift())\n  }\n',
    '    if (queries.length) { // keyhold: a reservation must stay on the wait list: onopen hands it the connection,\n' +
      '      const next = queries.shift() // a connection opened for it as its initial query forgets it (7)\n' +
      '      next.reserve && queries.push(next)\n' +
      '      connect(c, next)\n' +
      '    }\n  }\n',
  ],
  [
    '        const query = { reserve: resolve, reject }\n',
    '        // keyhold: a reservation that failed (its connection could not be opened) leaves the wait\n' +
      '        // list; otherwise the next connection to open is handed to it, and to no one\n' +
      '        const query = { reserve: resolve, reject: e => (queries.remove(query), reject(e)) }\n',
  ],
  [
    '    move(c, reserved)\n    c.reserved = () => queue.length\n',
    '    move(c, reserved)\n' +
      '    c.onclose = e => { // keyhold: closed while reserved: fail what waits here, refuse what comes\n' +
      '      closedWith = e\n' +
      '      while (queue.length) queue.shift().reject(e)\n' +
      '    }\n' +
      '    c.reserved = () => queue.length\n',
  ],
  [
    '    sql.release = () => {\n      c.reserved = null\n',
    '    sql.release = () => {\n' +
      '      if (closedWith) // keyhold: already in the closed queue, to be reconnected on demand; not among the open ones\n' +
      '        return\n' +
      '      c.onclose = null // keyhold\n' +
      '      c.reserved = null\n',
  ],
  [
    '    function handler(q) {\n      c.queue === full\n        ? queue.push(q)\n',
    '    function handler(q) {\n' +
      '      if (closedWith) // keyhold\n' +
      '        return q.reject(closedWith)\n' +
      '      c.queue === full\n        ? queue.push(q)\n',
  ],
  ['    const queries = Queue()\n    let savepoints = 0\n', '    const queries = Queue()\n    let closedWith = null // keyhold\n    let savepoints = 0\n'],
  [
    '        new Promise((_, reject) => connection.onclose = reject)\n',
    '        new Promise((_, reject) => connection.onclose = e => (closedWith = e, reject(e))) // keyhold\n',
  ],
  [
    '        q.catch(e => uncaughtError || (uncaughtError = e))\n',
    '        q.catch(e => uncaughtError || (uncaughtError = e))\n' +
      '        if (closedWith) // keyhold: the connection closed under this transaction; never write to its successor\n' +
      '          return q.reject(closedWith)\n',
  ],
];

const queueFixes = [
  // 8: see the header.
  [
    '    remove: (x) => {\n      const index = xs.indexOf(x)\n      return index === -1\n        ? null\n        : (xs.splice(index, 1), x)\n    },\n',
    '    remove: (x) => { // keyhold (8): the live part only; the slots before index are shifted out\n' +
      '      const at = xs.indexOf(x, index)\n' +
      '      return at === -1\n        ? null\n        : (xs.splice(at, 1), x)\n    },\n',
  ],
  [
    '      } else {\n        xs[index - 1] = undefined\n      }\n',
    '      } else if (index >= 1024 && index * 2 >= xs.length) { // keyhold (8): drop the dead slots\n' +
      '        xs = xs.slice(index)\n        index = 0\n' +
      '      } else {\n        xs[index - 1] = undefined\n      }\n',
  ],
];

const targets = [
  ['connection.js', connectionFixes],
  ['index.js', indexFixes],
  ['queue.js', queueFixes],
];

let root;
try {
  root = join(dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');
} catch {
  process.exit(0); // not installed (yet): nothing to patch
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

for (const [name, replacements] of targets) for (const variant of ['src', 'cjs/src', 'cf/src']) {
  const file = join(root, variant, name);
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  const original = text;
  let ok = true;
  for (const [from, to, count = 1] of replacements) {
    if (text.includes(to)) continue; // applied by an earlier run
    const found = text.split(from).length - 1;
    if (found !== count) {
      ok = false;
      break;
    }
    text = text.split(from).join(to);
  }
  if (!ok) {
    console.warn(`keyhold: postgres ${version}: ${variant}/${name} is not the code this patch fixes; left unchanged (see scripts/patch-postgres-js.mjs)`);
    continue;
  }
  if (text !== original) writeFileSync(file, text.startsWith(MARKER) ? text : `${MARKER}\n${text}`);
}
