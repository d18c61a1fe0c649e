// Per-call trust anchors on top of SimpleWebAuthn's process-wide SettingsService.
//
// SimpleWebAuthn reads the root certificates for a format from one global
// registry, in the middle of its (async) verifyRegistrationResponse. Setting the
// registry and then awaiting the verification would let a concurrent call with
// other anchors swap them underneath. So calls pass through a small gate: any
// number of verifications run together while they want the configuration that is
// applied; one that wants another configuration waits until those have finished,
// applies its own, and runs (with everyone queued behind it wanting the same).
// Waiters are served first-come, first-served, so none starves.
//
// Configurations are compared by object identity: a service passes the same
// object (or nothing) every time and never waits. This module owns the root
// certificates of SettingsService; nothing else in Keyhold should set them.
import { SettingsService, type AttestationFormat } from '@simplewebauthn/server';

/** Root certificates (PEM text or DER bytes) per attestation format. */
export type TrustAnchors = Partial<Record<AttestationFormat, ReadonlyArray<string | Uint8Array>>>;

const FORMATS_WITH_CERTIFICATES: readonly AttestationFormat[] = [
  'packed',
  'fido-u2f',
  'tpm',
  'android-key',
  'android-safetynet',
  'apple',
];

// SimpleWebAuthn ships roots for android-key (Google), android-safetynet
// (GlobalSign) and apple (Apple WebAuthn Root CA); the other formats have none,
// which makes it skip chain building and only check the statement's signature.
// Captured once, at import, so "no anchors given" always means these.
const LIBRARY_DEFAULTS = new Map(
  FORMATS_WITH_CERTIFICATES.map((fmt) => [fmt, SettingsService.getRootCertificates({ identifier: fmt })]),
);

/**
 * SimpleWebAuthn's own roots for a format, as captured at import (before this module, the only
 * writer, changed anything). Exported for tests: SettingsService itself holds whatever the last
 * call applied.
 */
export const libraryRootCertificates = (fmt: AttestationFormat): readonly string[] => LIBRARY_DEFAULTS.get(fmt) ?? [];

/** undefined stands for SimpleWebAuthn's defaults. */
let applied: TrustAnchors | undefined = undefined;
let running = 0;
const waiting: Array<{ anchors: TrustAnchors | undefined; admit: () => void }> = [];

function apply(anchors: TrustAnchors | undefined): void {
  for (const fmt of FORMATS_WITH_CERTIFICATES) {
    const certificates = anchors?.[fmt] ?? LIBRARY_DEFAULTS.get(fmt) ?? [];
    SettingsService.setRootCertificates({
      identifier: fmt,
      certificates: certificates.map((c) => (typeof c === 'string' ? c : Uint8Array.from(c))),
    });
  }
  applied = anchors;
}

function enter(anchors: TrustAnchors | undefined): Promise<void> | void {
  if (waiting.length === 0 && (running === 0 || anchors === applied)) {
    if (anchors !== applied) apply(anchors);
    running++;
    return;
  }
  return new Promise<void>((admit) => waiting.push({ anchors, admit }));
}

function leave(): void {
  running--;
  if (running > 0 || waiting.length === 0) return;
  if (waiting[0].anchors !== applied) apply(waiting[0].anchors);
  // Counted here rather than when they resume, so that nobody can slip in and
  // change the configuration between their admission and their first step.
  while (waiting.length > 0 && waiting[0].anchors === applied) {
    running++;
    waiting.shift()!.admit();
  }
}

/** Runs `work` while SettingsService holds `anchors` (undefined: the library's defaults). */
export async function withTrustAnchors<T>(anchors: TrustAnchors | undefined, work: () => Promise<T>): Promise<T> {
  await enter(anchors);
  try {
    return await work();
  } finally {
    leave();
  }
}
