// The person an upstream provider vouched for, read from its claims (an ID
// token and its userinfo) or its userinfo endpoint's answer through the
// provider's field mapping. The subject is the identity; everything else is
// a profile that may change at any time (an address above all).
import type { FieldMapping, Trust } from './provider.js';

export interface ExternalIdentity {
  /** The upstream's stable id of the person: with the provider's id, the link's key. */
  subject: string;
  email?: string;
  /** True only when the upstream says so AND the provider is trusted for it (Trust.emailVerified). */
  emailVerified: boolean;
  preferredUsername?: string;
  name?: string;
  givenName?: string;
  familyName?: string;
  /** What the upstream reported of the authentication (RFC 8176), whether or not it is trusted. */
  amr: string[];
}

/** Why an upstream's answer names nobody. */
export type IdentityRefusal = 'SUBJECT_MISSING';

const MAX_TEXT = 255;
/** A subject: a non-empty string, or an integer (GitHub's numeric ids), at most 255 characters. */
function subjectOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT && !/[\u0000-\u001f]/.test(value)) return value;
  return undefined;
}
const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() && value.length <= MAX_TEXT ? value.trim() : undefined);
/** `email_verified` as some upstreams send it: true, or the string "true". */
const yes = (value: unknown): boolean => value === true || value === 'true';

/** The identity of an upstream's claims, by the provider's mapping and trust. */
export function identityOf(claims: Readonly<Record<string, unknown>>, mapping: FieldMapping, trust: Trust): ExternalIdentity | IdentityRefusal {
  const subject = subjectOf(claims[mapping.id]);
  if (!subject) return 'SUBJECT_MISSING';
  const field = (name: string | undefined) => (name ? textOf(claims[name]) : undefined);
  const email = field(mapping.email);
  const amr = Array.isArray(claims.amr) ? claims.amr.filter((v): v is string => typeof v === 'string' && v.length <= 32).slice(0, 10) : [];
  return {
    subject,
    email,
    emailVerified: Boolean(email && trust.emailVerified && mapping.emailVerified && yes(claims[mapping.emailVerified])),
    preferredUsername: field(mapping.preferredUsername),
    name: field(mapping.name),
    givenName: field(mapping.givenName),
    familyName: field(mapping.familyName),
    amr,
  };
}
