// Per-call trust anchors over SimpleWebAuthn's one global SettingsService: calls
// with different anchors must not see each other's, even when they overlap.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SettingsService } from '@simplewebauthn/server';
import { libraryRootCertificates, withTrustAnchors, type TrustAnchors } from '../../../src/domain/webauthn/trust-anchors.js';
import { verifyRegistration } from '../../../src/domain/webauthn/index.js';
import { GLOBALSIGN_ROOT_R2, W3C_SPEC_TEST_CA } from './fixtures/trust-anchors.js';

const packedRoots = () => SettingsService.getRootCertificates({ identifier: 'packed' });
const appleRoots = () => SettingsService.getRootCertificates({ identifier: 'apple' });
// Not read from SettingsService at import: it holds what the last call in this worker applied.
const APPLE_DEFAULTS = libraryRootCertificates('apple');

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('withTrustAnchors', () => {
  it('applies the anchors for the call and restores the library defaults for calls without', async () => {
    const anchors: TrustAnchors = { packed: [W3C_SPEC_TEST_CA] };
    const inside = await withTrustAnchors(anchors, async () => ({ packed: packedRoots(), apple: appleRoots() }));
    expect(inside.packed).toEqual([W3C_SPEC_TEST_CA]);
    expect(inside.apple).toEqual(APPLE_DEFAULTS); // formats not named keep their defaults
    expect(await withTrustAnchors(undefined, async () => packedRoots())).toEqual([]);
  });

  it('runs calls with the same anchors together, and makes a call with others wait for them', async () => {
    const a: TrustAnchors = { packed: [W3C_SPEC_TEST_CA] };
    const b: TrustAnchors = { packed: [GLOBALSIGN_ROOT_R2] };
    const events: string[] = [];
    const releaseA1 = deferred();
    const releaseA2 = deferred();

    const a1 = withTrustAnchors(a, async () => {
      events.push('a1 start');
      await releaseA1.promise;
      events.push(`a1 sees ${packedRoots()[0] === W3C_SPEC_TEST_CA ? 'a' : 'other'}`);
    });
    const a2 = withTrustAnchors(a, async () => {
      events.push('a2 start');
      await releaseA2.promise;
      events.push(`a2 sees ${packedRoots()[0] === W3C_SPEC_TEST_CA ? 'a' : 'other'}`);
    });
    const b1 = withTrustAnchors(b, async () => {
      events.push(`b1 start, sees ${packedRoots()[0] === GLOBALSIGN_ROOT_R2 ? 'b' : 'other'}`);
    });
    // Arriving after b1 queued: waits its turn behind b1 even though a is applied.
    const a3 = withTrustAnchors(a, async () => {
      events.push('a3 start');
    });

    try {
      await new Promise((r) => setTimeout(r, 10));
      expect(events).toEqual(['a1 start', 'a2 start']);
      releaseA2.resolve();
      await new Promise((r) => setTimeout(r, 10));
      expect(events).toEqual(['a1 start', 'a2 start', 'a2 sees a']); // b1 still waits for a1
    } finally {
      // Released even when an expectation fails: the anchors' queue is module state, and the
      // next test file in this worker (vitest isolate: false) verifies through it.
      releaseA1.resolve();
      releaseA2.resolve();
    }
    await Promise.all([a1, a2, b1, a3]);
    expect(events).toEqual(['a1 start', 'a2 start', 'a2 sees a', 'a1 sees a', 'b1 start, sees b', 'a3 start']);
  });

  it('keeps going after a call fails', async () => {
    await expect(withTrustAnchors({ packed: [] }, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withTrustAnchors(undefined, async () => 'next')).toBe('next');
  });
});

describe('verifyRegistration with overlapping calls and different trust anchors', () => {
  // A real packed x5c attestation (a YubiKey, via py_webauthn's tests). It verifies
  // with no packed anchors (no chain is required) and fails when the only packed
  // anchor is an unrelated root.
  const vectorsPath = fileURLToPath(new URL('./fixtures/conformance/vectors.json', import.meta.url));
  const vector = (JSON.parse(readFileSync(vectorsPath, 'utf8')) as Array<Record<string, any>>).find(
    (v) => v.name === 'py-packed-yubikey-firefox',
  )!;
  const run = (trustAnchors: TrustAnchors | undefined) =>
    verifyRegistration({
      credential: vector.credential,
      expectedChallenge: vector.expectedChallenge,
      expectedOrigins: [vector.expectedOrigin],
      expectedRpId: vector.expectedRPID,
      trustAnchors,
    });

  it('each call is judged by its own anchors', async () => {
    const unrelatedRoot: TrustAnchors = { packed: [W3C_SPEC_TEST_CA] };
    const calls = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? undefined : unrelatedRoot));
    const results = await Promise.all(calls.map(run));
    results.forEach((result, i) => {
      if (calls[i] === undefined) expect(result.ok, `call ${i}`).toBe(true);
      else expect(result, `call ${i}`).toMatchObject({ ok: false, reason: 'ATTESTATION_INVALID' });
    });
  });
});
