// Registration checks on worker threads (src/server/verification-threads.ts):
// the same outcomes as on the event loop, spread over the threads, and threads
// that never keep a process alive.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyRegistration, type RegistrationVerificationInput } from '../../src/domain/webauthn/index.js';
import { verificationThreads } from '../../src/server/verification-threads.js';
import { createSoftAuthenticator } from '../support/soft-authenticator.js';

const RP_ID = 'login.example.com';
const ORIGIN = 'https://login.example.com';

function registration(fmt: 'none' | 'packed', tamper = false): RegistrationVerificationInput {
  const challenge = randomBytes(32).toString('base64url');
  const credential = createSoftAuthenticator({ alg: -7 }).makeRegistration({
    challenge,
    origin: ORIGIN,
    rpId: RP_ID,
    fmt,
    ...(tamper ? { tamper: { signature: (s: Uint8Array) => Uint8Array.from(s, (b, i) => (i === 10 ? b ^ 1 : b)) } } : {}),
  });
  return { credential, expectedChallenge: challenge, expectedOrigins: [ORIGIN], expectedRpId: RP_ID };
}

describe('verification threads', () => {
  const threads = verificationThreads(2);
  afterAll(() => threads.close());

  it('verify and refuse exactly as verifyRegistration does on the event loop', async () => {
    const inputs = [
      registration('packed'),
      registration('none'),
      registration('packed', true),
      { ...registration('none'), expectedOrigins: ['https://other.example.com'] },
      { ...registration('packed'), credential: { id: 'x', type: 'public-key' } },
    ];
    const onThreads = await Promise.all(inputs.map((input) => threads.verify(input)));
    const onLoop = await Promise.all(inputs.map((input) => verifyRegistration(input)));
    expect(onThreads).toEqual(onLoop);
    expect(onThreads.map((r) => (r.ok ? 'ok' : r.reason))).toEqual(['ok', 'ok', 'ATTESTATION_INVALID', 'ORIGIN_NOT_ALLOWED', 'CREDENTIAL_MALFORMED']);
    // The stored key comes back as bytes, not as a plain object.
    expect(onThreads[0]!.ok && onThreads[0]!.credential.publicKey).toBeInstanceOf(Uint8Array);
  });

  it('keeps up with many calls at once, each answered with its own result', async () => {
    const inputs = Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? registration('packed', true) : registration(i % 2 ? 'none' : 'packed')));
    const results = await Promise.all(inputs.map((input) => threads.verify(input)));
    results.forEach((result, i) => expect(result.ok, `call ${i}`).toBe(i % 4 !== 3));
    const ids = results.filter((r) => r.ok).map((r) => (r.ok ? r.credential.credentialId : ''));
    expect(new Set(ids).size).toBe(30);
    expect(ids).toEqual(inputs.filter((_, i) => i % 4 !== 3).map((input) => (input.credential as { id: string }).id));
  });

  it('tell their queue depth (keyhold_verification_queue_depth): the calls sent and not yet answered', async () => {
    expect(threads.queueDepth()).toBe(0);
    const pending = Array.from({ length: 6 }, () => threads.verify(registration('none')));
    expect(threads.queueDepth(), 'all six sent, none answered yet').toBe(6);
    await Promise.all(pending);
    expect(threads.queueDepth()).toBe(0);
  });

  it('rejects input that cannot be sent to a thread, and keeps serving', async () => {
    const input = { ...registration('none'), credential: { notCopyable: () => 1 } } as unknown as RegistrationVerificationInput;
    await expect(threads.verify(input)).rejects.toThrow(/could not be cloned/);
    expect((await threads.verify(registration('none'))).ok).toBe(true);
  });

  it('refuses calls after close', async () => {
    const closing = verificationThreads(1);
    expect((await closing.verify(registration('none'))).ok).toBe(true);
    await closing.close();
    await expect(closing.verify(registration('none'))).rejects.toThrow(/closed/);
  });

  const standIn = new URL('../support/dying-verify-worker.mjs', import.meta.url);
  const input = (expectedChallenge: string) => ({ credential: {}, expectedChallenge, expectedOrigins: [ORIGIN], expectedRpId: RP_ID });
  const answer = (name: string) => ({ ok: false, reason: 'CREDENTIAL_MALFORMED', detail: `stand-in ${name}` });

  it('a call that kills its thread fails after one more try; the calls that shared the thread are answered', async () => {
    const dying = verificationThreads(1, { script: standIn });
    try {
      expect(await dying.verify(input('before'))).toEqual(answer('before'));
      // All on the one thread; "die" arrives while "a" is still under way.
      const outcomes = await Promise.allSettled([dying.verify(input('a')), dying.verify(input('die')), dying.verify(input('b'))]);
      expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { message: 'verification thread exited (3)' } });
      expect([outcomes[0], outcomes[2]]).toEqual([
        { status: 'fulfilled', value: answer('a') },
        { status: 'fulfilled', value: answer('b') },
      ]);
      expect(await dying.verify(input('after'))).toEqual(answer('after'));
    } finally {
      await dying.close();
    }
  });

  it('a thread that stops answering is given up and replaced; the call that hung it fails, the rest are answered', async () => {
    const hanging = verificationThreads(1, { script: standIn, stuckAfterMs: 1_000 });
    try {
      // "a" is under way when "hang" stops the thread; "b" never reaches it.
      const outcomes = await Promise.allSettled([hanging.verify(input('a')), hanging.verify(input('hang')), hanging.verify(input('b'))]);
      expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { message: 'verification thread stopped answering (1000 ms)' } });
      expect([outcomes[0], outcomes[2]]).toEqual([
        { status: 'fulfilled', value: answer('a') },
        { status: 'fulfilled', value: answer('b') },
      ]);
      expect(await hanging.verify(input('after'))).toEqual(answer('after'));
    } finally {
      await hanging.close();
    }
  });

  it('close refuses the calls still waiting, even on a thread that is stuck', async () => {
    const stuck = verificationThreads(1, { script: standIn });
    const waiting = stuck.verify(input('hang')).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 200));
    await stuck.close();
    expect(await waiting).toMatchObject({ message: 'verification threads are closed' });
  });

  it('does not keep a process alive once its calls are answered', async () => {
    const script = `
      import { verificationThreads } from ${JSON.stringify(fileURLToPath(new URL('../../src/server/verification-threads.ts', import.meta.url)))};
      const threads = verificationThreads(2);
      const result = await threads.verify({ credential: {}, expectedChallenge: 'AAAA', expectedOrigins: ['https://a.example'], expectedRpId: 'a.example' });
      console.log(result.ok ? 'ok' : result.reason);
    `;
    const dir = await mkdtemp(join(tmpdir(), 'keyhold-threads-'));
    const file = join(dir, 'verify-once.mts');
    await writeFile(file, script);
    const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    await rm(dir, { recursive: true, force: true });
    expect(out.trim()).toBe('CREDENTIAL_MALFORMED');
    expect(code).toBe(0);
  }, 30_000);
});
