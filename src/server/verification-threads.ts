// WebAuthn registration checks on worker threads (KEYHOLD_WEBAUTHN_VERIFY_THREADS).
//
// Why: verifying one registration costs the event loop more than everything
// else VerifyU2FRegistration does — WebCrypto's key import in JavaScript, CBOR
// decoding, SimpleWebAuthn (bench profile: ~45% of the main thread at ~700
// verifications/s). On a worker thread that work runs beside the event loop,
// on another core, instead of in front of every other request.
//
// The threads run the same pure verifyRegistration; its input and result are
// plain data (structured clone). A thread that dies fails its pending calls
// with an error and is replaced on the next call. Threads are unref'd: they
// never keep a process alive by themselves.
import { Worker } from 'node:worker_threads';
import type { RegistrationVerificationInput, RegistrationVerificationResult } from '../domain/webauthn/index.js';

export interface VerifyRequest {
  id: number;
  input: RegistrationVerificationInput;
}
export type VerifyReply = { id: number; result: RegistrationVerificationResult; error?: undefined } | { id: number; error: string; result?: undefined };

export type RegistrationVerifier = (input: RegistrationVerificationInput) => Promise<RegistrationVerificationResult>;

export interface VerificationThreads {
  verify: RegistrationVerifier;
  close(): Promise<void>;
}

interface Pending {
  resolve(result: RegistrationVerificationResult): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

// Plain JavaScript that loads the TypeScript body (see there).
const workerUrl = new URL('./verify-worker.mjs', import.meta.url);

/** `size` threads; `script` is for tests (a stand-in body that can be made to die). */
export function verificationThreads(size: number, script: URL = workerUrl): VerificationThreads {
  const threads: (Thread | undefined)[] = Array.from({ length: size }, () => undefined);
  let nextId = 1;
  let closed = false;

  function spawn(slot: number): Thread {
    const worker = new Worker(script);
    worker.unref();
    const thread: Thread = { worker, pending: new Map() };
    const failAll = (error: Error) => {
      if (threads[slot] === thread) threads[slot] = undefined;
      for (const p of thread.pending.values()) p.reject(error);
      thread.pending.clear();
    };
    worker.on('message', (reply: VerifyReply) => {
      const p = thread.pending.get(reply.id);
      if (!p) return;
      thread.pending.delete(reply.id);
      if (thread.pending.size === 0) worker.unref();
      if (reply.error !== undefined) p.reject(new Error(`registration verification failed: ${reply.error}`));
      else p.resolve(reply.result);
    });
    worker.on('error', (error) => failAll(new Error(`verification thread failed: ${error.message}`)));
    worker.on('exit', (code) => failAll(new Error(`verification thread exited (${code})`)));
    return thread;
  }

  /** The thread with the fewest calls in flight (starting threads as needed). */
  function pick(): Thread {
    let best: Thread | undefined;
    for (let slot = 0; slot < threads.length; slot++) {
      const thread = (threads[slot] ??= spawn(slot));
      if (!best || thread.pending.size < best.pending.size) best = thread;
      if (best.pending.size === 0) break;
    }
    return best!;
  }

  return {
    verify(input) {
      if (closed) return Promise.reject(new Error('verification threads are closed'));
      const thread = pick();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        // Referenced while a call is pending, so an awaited verification cannot be cut off by an exiting event loop.
        thread.worker.ref();
        try {
          thread.worker.postMessage({ id, input } satisfies VerifyRequest);
        } catch (error) {
          // Input that cannot be copied to the thread (a defect upstream): nothing was sent, so nothing stays pending.
          thread.pending.delete(id);
          if (thread.pending.size === 0) thread.worker.unref();
          reject(error);
        }
      });
    },
    async close() {
      closed = true;
      await Promise.all(threads.map((t) => t?.worker.terminate()));
    },
  };
}
