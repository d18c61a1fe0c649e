// A stand-in verification thread body for test/server/verification-threads.test.ts.
// By the request's expectedChallenge: "die" exits at once, "hang" never returns
// (a busy loop: the thread answers nothing more); anything else is answered at
// once with a fixed refusal naming it.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', ({ id, input }) => {
  if (input.expectedChallenge === 'die') process.exit(3);
  if (input.expectedChallenge === 'hang') for (;;);
  parentPort.postMessage({ id, result: { ok: false, reason: 'CREDENTIAL_MALFORMED', detail: `stand-in ${input.expectedChallenge}` } });
});
