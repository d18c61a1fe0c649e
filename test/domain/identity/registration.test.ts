// Self-registration's address rules: the allowed domains as stored, and an
// address read unambiguously against them — case, subdomains, look-alike and
// invisible characters, a quoted second "@".
import { describe, expect, it } from 'vitest';
import { registerDomainsRule, registrationAddress } from '../../../src/domain/identity/registration.js';

describe('registration addresses', () => {
  it('an allowed domain in any case; any domain when none is named', () => {
    expect(registrationAddress('Ada@Example.COM', ['example.com'])).toEqual({ ok: true, domain: 'example.com' });
    expect(registrationAddress('ada@anything.example', [])).toEqual({ ok: true, domain: 'anything.example' });
  });

  it('another domain, a subdomain, a suffix look-alike: not allowed', () => {
    for (const email of ['ada@example.org', 'ada@evil.example.com', 'ada@example.com.evil.test', 'ada@notexample.com']) {
      expect(registrationAddress(email, ['example.com']), email).toEqual({ ok: false, why: 'domain' });
    }
  });

  it('Unicode tricks are refused as ambiguous, whatever the allowed domains', () => {
    const tricks = [
      'ada@exаmple.com', // Cyrillic а
      'ada@example.com\u200b', // zero-width space
      'ada\uff20example.com', // full-width at sign
      'ada@ｅxample.com', // full-width e
      'ada@example.com.', // trailing dot
      '"ada@example.com"@evil.test', // a quoted second @
      'ada@@example.com',
      'äda@example.com', // a non-ASCII local part
      'ada@xn--exmple-cua.com\u202e', // a direction override
    ];
    for (const email of tricks) expect(registrationAddress(email, ['example.com']), email).toEqual({ ok: false, why: 'ambiguous' });
    // The xn-- form of an internationalized domain is plain ASCII: it may be allowed as such.
    expect(registrationAddress('ada@xn--mnchen-3ya.de', ['xn--mnchen-3ya.de'])).toEqual({ ok: true, domain: 'xn--mnchen-3ya.de' });
  });

  it('allowed domains are stored lower-case, once; a non-ASCII or malformed one is named by its index', () => {
    expect(registerDomainsRule('allowedDomains', ['Example.com', 'example.com', ' corp.example '])).toEqual({ violations: [], domains: ['example.com', 'corp.example'] });
    const bad = registerDomainsRule('allowedDomains', ['ok.example', 'münchen.de', 'localhost', '-x.example']);
    expect(bad.violations.map((v) => v.field)).toEqual(['allowedDomains[1]', 'allowedDomains[2]', 'allowedDomains[3]']);
  });
});
