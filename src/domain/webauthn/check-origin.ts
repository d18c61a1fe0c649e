// Where did the ceremony run? The origin must be one Keyhold is configured for,
// and a credential made inside a cross-origin iframe is refused unless the
// caller opted in (a second-factor registration has no reason to be embedded).
import type { ClientData } from './client-data.js';
import { reject } from './rejection.js';

export interface OriginPolicy {
  expectedOrigins: readonly string[];
  allowCrossOrigin: boolean;
  allowedTopOrigins?: readonly string[];
}

/**
 * Configured web origins are reduced to their serialised origin, so that
 * "https://example.com/" in a config file matches the "https://example.com" a
 * browser reports. Other schemes (e.g. "android:apk-key-hash:…") have no URL
 * origin and are compared as written. The client's value is never normalised.
 */
export function normaliseConfiguredOrigin(configured: string): string {
  try {
    const url = new URL(configured);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
  } catch {
    // not a URL: keep as written
  }
  return configured;
}

export function checkOrigin(clientData: ClientData, policy: OriginPolicy): void {
  const allowed = policy.expectedOrigins.map(normaliseConfiguredOrigin);
  if (!allowed.includes(clientData.origin)) {
    // Deliberately not the origin the client sent (ZITADEL echoes it into its error).
    reject('ORIGIN_NOT_ALLOWED', 'the origin is not one of the configured origins');
  }
  const embedded = clientData.crossOrigin || clientData.topOrigin !== undefined;
  if (!embedded) return;
  if (!policy.allowCrossOrigin) {
    reject('ORIGIN_NOT_ALLOWED', 'the credential was created in a cross-origin frame, which is not allowed');
  }
  if (policy.allowedTopOrigins && clientData.topOrigin !== undefined) {
    if (!policy.allowedTopOrigins.map(normaliseConfiguredOrigin).includes(clientData.topOrigin)) {
      reject('ORIGIN_NOT_ALLOWED', 'the top-level origin is not one of the configured top origins');
    }
  }
}
