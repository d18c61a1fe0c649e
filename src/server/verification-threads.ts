// WebAuthn registration checks on worker threads (KEYHOLD_WEBAUTHN_VERIFY_THREADS).
//
// Why: verifying one registration costs the event loop more than everything
// else VerifyU2FRegistration does — WebCrypto's key import in JavaScript, CBOR
// decoding, SimpleWebAuthn (bench profile: ~45% of the main thread at ~700
// verifications/s). On a worker thread that work runs beside the event loop,
// on another core, instead of in front of every other request.
//
// The threads run the same pure verifyRegistration; its input and result are
// plain data (structured clone). Threads are unref'd: they never keep a
// process alive by themselves.
//
// A thread that dies, or stops answering for `stuckAfterMs` while calls wait
// on it, is replaced (a stuck one is given up at once and terminated). Its
// waiting calls are sent once more: verification has no side effects, and
// most of them only had the bad luck to share the thread with the call that
// broke it. Which one that was cannot be told — a thread runs many calls at
// once, each parked at its own await — so they are re-sent one at a time, each
// after the previous one is answered: the call that breaks a thread again
// then breaks it alone, and only it is refused (500). A bad input costs at most
// two threads per command and never loops.
import { Worker } from 'node:worker_threads';
import type { RegistrationVerifier } from '../commands/ports.js';
import type { RegistrationVerificationInput, RegistrationVerificationResult } from '../domain/webauthn/index.js';

export interface VerifyRequest {
  id: number;
  input: RegistrationVerificationInput;
}
export type VerifyReply = { id: number; result: RegistrationVerificationResult; error?: undefined } | { id: number; error: string; result?: undefined };

export type { RegistrationVerifier };

export interface VerificationThreads {
  verify: RegistrationVerifier;
  /** Verifications sent to a thread and not yet answered, over all threads (the metrics' queue depth). */
  queueDepth(): number;
  close(): Promise<void>;
}

interface Pending {
  input: RegistrationVerificationInput;
  /** 1 on the first thread, 2 when re-sent after that thread failed. */
  attempt: number;
  resolve(result: RegistrationVerificationResult): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** When the thread last answered, or was given work while idle (performance.now()). */
  lastProgress: number;
  /** False until the thread has started: its start-up does not count as silence. */
  online: boolean;
}

export interface VerificationThreadOptions {
  /** A stand-in thread body (tests). */
  script?: URL;
  /** A thread that answers nothing for this long while calls wait on it is terminated and replaced. */
  stuckAfterMs?: number;
}

/** One verification takes about a millisecond of CPU: ten seconds of silence is a stuck thread. */
export const STUCK_AFTER_MS = 10_000;

// Plain JavaScript that loads the TypeScript body (see there); in the build, the compiled body itself.
const workerUrl = new URL('./verify-worker.mjs', import.meta.url);

export function verificationThreads(size: number, options: VerificationThreadOptions = {}): VerificationThreads {
  const script = options.script ?? workerUrl;
  const stuckAfterMs = options.stuckAfterMs ?? STUCK_AFTER_MS;
  const threads: (Thread | undefined)[] = Array.from({ length: size }, () => undefined);
  let nextId = 1;
  let closed = false;

  function spawn(slot: number): Thread {
    const worker = new Worker(script);
    worker.unref();
    const thread: Thread = { worker, pending: new Map(), lastProgress: performance.now(), online: false };
    worker.on('online', () => {
      thread.online = true;
      thread.lastProgress = performance.now();
    });
    worker.on('message', (reply: VerifyReply) => {
      const p = thread.pending.get(reply.id);
      if (!p) return;
      thread.pending.delete(reply.id);
      thread.lastProgress = performance.now();
      if (thread.pending.size === 0) worker.unref();
      if (reply.error !== undefined) p.reject(new Error(`registration verification failed: ${reply.error}`));
      else p.resolve(reply.result);
    });
    worker.on('error', (error) => failed(slot, thread, new Error(`verification thread failed: ${error.message}`)));
    worker.on('exit', (code) => failed(slot, thread, new Error(`verification thread exited (${code})`)));
    return thread;
  }

  /** Gives up `thread`: no new calls for it, its waiting calls retried (see above) or refused. */
  function failed(slot: number, thread: Thread, error: Error): void {
    if (threads[slot] === thread) threads[slot] = undefined;
    const waiting = [...thread.pending.values()];
    thread.pending.clear();
    thread.worker.unref();
    void retryOneByOne(waiting, error);
  }

  async function retryOneByOne(calls: readonly Pending[], error: Error): Promise<void> {
    for (const call of calls) {
      if (call.attempt > 1 || closed) {
        call.reject(error);
        continue;
      }
      await new Promise<void>((answered) => {
        const settle = { resolve: call.resolve, reject: call.reject };
        try {
          send({
            input: call.input,
            attempt: 2,
            resolve: (result) => (settle.resolve(result), answered()),
            reject: (e) => (settle.reject(e), answered()),
          });
        } catch (e) {
          // A replacement thread could not be started: refuse instead of throwing out of an event handler.
          call.reject(e as Error);
          answered();
        }
      });
    }
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

  function send(call: Pending): void {
    const thread = pick();
    const id = nextId++;
    if (thread.pending.size === 0) thread.lastProgress = performance.now();
    thread.pending.set(id, call);
    // Referenced while a call is pending, so an awaited verification cannot be cut off by an exiting event loop.
    thread.worker.ref();
    try {
      thread.worker.postMessage({ id, input: call.input } satisfies VerifyRequest);
    } catch (error) {
      // Input that cannot be copied to the thread (a defect upstream): nothing was sent, so nothing stays pending.
      thread.pending.delete(id);
      if (thread.pending.size === 0) thread.worker.unref();
      call.reject(error as Error);
    }
  }

  // The watchdog: terminating a stuck thread makes it exit, and its calls go on as above.
  const watchdog = setInterval(
    () => {
      const now = performance.now();
      threads.forEach((thread, slot) => {
        if (!thread?.online || thread.pending.size === 0 || now - thread.lastProgress <= stuckAfterMs) return;
        // Given up now, not at its exit: a thread stuck in native code may never exit.
        failed(slot, thread, new Error(`verification thread stopped answering (${stuckAfterMs} ms)`));
        void thread.worker.terminate();
      });
    },
    Math.max(10, stuckAfterMs / 4),
  ).unref();

  return {
    verify(input) {
      if (closed) return Promise.reject(new Error('verification threads are closed'));
      return new Promise((resolve, reject) => send({ input, attempt: 1, resolve, reject }));
    },
    queueDepth() {
      let depth = 0;
      for (const thread of threads) depth += thread?.pending.size ?? 0;
      return depth;
    },
    async close() {
      closed = true;
      clearInterval(watchdog);
      const running = threads.filter((t): t is Thread => t !== undefined);
      threads.fill(undefined);
      // Settled here, not by their exit events: a thread that cannot be terminated must not leave a caller waiting.
      for (const thread of running) {
        for (const p of thread.pending.values()) p.reject(new Error('verification threads are closed'));
        thread.pending.clear();
      }
      await Promise.all(running.map((t) => t.worker.terminate()));
    },
  };
}
