// A stand-in verification thread body for test/server/verification-threads.test.ts:
// exits at once on a request whose expectedChallenge is "die", answers the rest
// with a fixed refusal.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', ({ id, input }) => {
  if (input.expectedChallenge === 'die') process.exit(3);
  parentPort.postMessage({ id, result: { ok: false, reason: 'CREDENTIAL_MALFORMED', detail: `stand-in ${input.expectedChallenge}` } });
});
