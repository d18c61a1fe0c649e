// The body of a verification thread (./verification-threads.ts): runs
// verifyRegistration — the same pure function the main thread would run — on
// what it is sent, and posts the outcome back under the request's number.
import { parentPort } from 'node:worker_threads';
import { verifyRegistration } from '../domain/webauthn/index.js';
import type { VerifyReply, VerifyRequest } from './verification-threads.js';

const port = parentPort!;
port.on('message', ({ id, input }: VerifyRequest) => {
  verifyRegistration(input).then(
    (result) => port.postMessage({ id, result } satisfies VerifyReply),
    // Not a refusal (those are results): a defect. The message only, as the main thread would log it.
    (error: unknown) => port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies VerifyReply),
  );
});
