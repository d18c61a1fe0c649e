// The account page's markup: every value a user or an administrator typed is
// text, never markup (names, the address, factor names, app names, codes);
// every form carries the form token; the German page is German; a user
// without a password is asked for no password; the key ceremony's page has
// the key-step script's elements and nothing inline.
import { describe, expect, it } from 'vitest';
import { accountBody, codesBody, passkeyBody, totpBody } from '../../src/account/pages.js';
import type { AccountView } from '../../src/account/ports.js';

const EVIL = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
const HIDDEN = '<input type="hidden" name="form_token" value="T">';

const view = (over: Partial<AccountView> = {}): AccountView => ({
  id: 'u1',
  username: `name${EVIL}`,
  givenName: EVIL,
  familyName: EVIL,
  displayName: EVIL,
  email: `a${EVIL}@example.com`,
  emailVerified: false,
  mailConfigured: true,
  hasPassword: true,
  factors: [
    { kind: 'passkey', id: `p${EVIL}`, name: EVIL, createdAt: new Date('2026-01-02T00:00:00Z') },
    { kind: 'key', id: 'k1', name: null },
    { kind: 'totp', id: 'totp', name: null },
  ],
  codesLeft: 3,
  mfaRequired: false,
  links: [{ idpId: `i${EVIL}`, name: EVIL, subject: `s${EVIL}` }],
  ...over,
});

const page = (v = view(), lang: 'en' | 'de' = 'en') => accountBody(lang, { view: v, grants: [{ clientId: `c${EVIL}`, appName: EVIL }], sessions: [], hidden: HIDDEN }, { problem: 'p', notice: 'n' });

describe('the account page markup', () => {
  it('shows every typed value as text: no tag, no attribute breaks out', () => {
    const html = page();
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/"\s*>\s*<script/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;');
  });

  it('every form posts to /ui/account/<action> with the form token', () => {
    const html = page();
    const forms = html.match(/<form[^>]*>/g) ?? [];
    expect(forms.length).toBeGreaterThanOrEqual(8);
    for (const f of forms) expect(f).toMatch(/method="post" action="\/ui\/account\/[a-z-]+"/);
    expect(html.split('<form').length - 1).toBe(html.split(HIDDEN).length - 1);
  });

  it('asks for the current password on the changes to how the user signs in; not without a password', () => {
    const html = page();
    // Address change, password change, three removals, passkey, codes, the link's removal (the app is there: no add-app form).
    expect(html.match(/name="current_password"/g)?.length).toBe(8);
    expect(html).not.toContain('id="add-totp-form"');
    expect(page(view({ hasPassword: false, factors: [] }))).not.toContain('name="current_password"');
    expect(page(view({ factors: [] }))).toContain('id="add-totp-form"');
  });

  it('speaks German', () => {
    const html = page(view(), 'de');
    expect(html).toContain('Dein Konto');
    expect(html).toContain('Passwort ändern');
    expect(html).toContain('nicht bestätigt');
  });

  it('the ceremony, the app and the codes pages escape too and hold no inline script', () => {
    const ceremony = passkeyBody('en', HIDDEN, EVIL, EVIL, { challenge: EVIL });
    expect(ceremony).toContain('id="key-step" data-mode="register"');
    expect(ceremony).toContain('id="key-form"');
    expect(ceremony).not.toContain('<script');
    expect(totpBody('en', HIDDEN, '<svg></svg>', `ABCD${EVIL}`)).not.toContain('<script');
    expect(codesBody('en', [EVIL])).not.toContain('<script');
  });
});
