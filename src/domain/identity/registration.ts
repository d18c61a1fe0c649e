// Self-registration's address rules. An org that allows registration may
// limit it to address domains; an address must then read unambiguously as one
// of them. What a person sees is what is compared:
// - the domain is compared in lower case, exactly (a subdomain is another
//   domain: "evil.example.com" is not "example.com");
// - an address with anything but ASCII letters, digits, dots, hyphens in its
//   domain is refused (full-width "＠", a Cyrillic "е", a zero-width space, a
//   trailing dot): an internationalized domain is registered in its xn-- form;
// - the local part is plain printable ASCII without quotes, so "a@b"@c cannot
//   hide a second domain.
// Allowed domains are stored in the same lower-case ASCII form.
import { violation, type FieldViolation } from '../errors/keyhold-error.js';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const LOCAL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;

/** A domain as stored and compared: lower-case ASCII labels, at least two; undefined when it is none. */
export function asciiDomain(text: string): string | undefined {
  const lower = text.toLowerCase();
  if (lower.length > 253 || /[^a-z0-9.-]/.test(lower)) return undefined;
  const labels = lower.split('.');
  return labels.length >= 2 && labels.every((l) => LABEL.test(l)) ? lower : undefined;
}

/** The login policy's allowed domains: each one a domain (as above), at most 50, no repeats. */
export function registerDomainsRule(field: string, domains: readonly string[]): { violations: FieldViolation[]; domains: string[] } {
  const violations: FieldViolation[] = [];
  if (domains.length > 50) violations.push(violation(field, { en: 'must name at most 50 domains', de: 'darf höchstens 50 Domains nennen' }));
  const out: string[] = [];
  domains.forEach((d, i) => {
    const domain = asciiDomain(d.trim());
    if (!domain) {
      violations.push(violation(`${field}[${i}]`, { en: 'must be a domain in ASCII (an internationalized one in its xn-- form)', de: 'muss eine Domain in ASCII sein (eine internationalisierte in ihrer xn---Form)' }));
    } else if (!out.includes(domain)) {
      out.push(domain);
    }
  });
  return { violations, domains: out };
}

export type AddressVerdict = { ok: true; domain: string } | { ok: false; why: 'ambiguous' | 'domain' };

/** Whether a registration may use `email` under `allowed` (empty: any domain). */
export function registrationAddress(email: string, allowed: readonly string[]): AddressVerdict {
  const at = email.lastIndexOf('@');
  if (at < 1 || email.indexOf('@') !== at) return { ok: false, why: 'ambiguous' };
  const domain = asciiDomain(email.slice(at + 1));
  if (!domain || !LOCAL.test(email.slice(0, at))) return { ok: false, why: 'ambiguous' };
  if (allowed.length && !allowed.includes(domain)) return { ok: false, why: 'domain' };
  return { ok: true, domain };
}
