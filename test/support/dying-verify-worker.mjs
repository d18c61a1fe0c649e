// A stand-in verification thread body for test/server/verification-threads.test.ts.
// Like the real one it runs several calls at once: each is answered only after
// a turn of the event loop (the real one awaits WebCrypto). By the request's
// expectedChallenge: "die" exits at once, "hang" never returns (a busy loop:
// nothing more is answered, the calls already started included); anything
// else gets a fixed refusal naming it.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', ({ id, input }) => {
  if (input.expectedChallenge === 'die') process.exit(3);
  if (input.expectedChallenge === 'hang') for (;;);
  setImmediate(() =>
    parentPort.postMessage({ id, result: { ok: false, reason: 'CREDENTIAL_MALFORMED', detail: `stand-in ${input.expectedChallenge}` } }),
  );
});
