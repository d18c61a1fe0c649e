// The SMTP adapter against a real SMTP server process: what a recipient would
// read (subject, text, HTML, language, links, escaped values), authentication
// with the password from its file, and each way a send fails answering
// MailUnavailable without the password — never a plaintext fallback.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/server/config.js';
import { configReport } from '../../src/server/config-report.js';
import { MailUnavailable } from '../../src/mail/mailer.js';
import { NO_MAIL, smtpMailer, type SmtpSettings } from '../../src/mail/smtp.js';
import { render } from '../../src/mail/templates/render.js';
import { PASSWORD_RESET } from '../../src/mail/templates/password-reset.js';
import { VERIFY_EMAIL } from '../../src/mail/templates/verify-email.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const PASSWORD = 'smtp-secret-Zq81x';

function settingsFor(env: Record<string, string>, files: Record<string, string> = {}): SmtpSettings {
  const config = loadConfig({ KEYHOLD_PORT: '0', ...env }, (file) => {
    if (file in files) return files[file]!;
    throw Object.assign(new Error('missing'), { code: 'ENOENT' });
  });
  return config.smtp!;
}

describe('mail through a real SMTP server', () => {
  let plain: TestSmtpServer;
  let authed: TestSmtpServer;
  let rejecting: TestSmtpServer;
  beforeAll(async () => {
    [plain, authed, rejecting] = await Promise.all([
      startSmtpServer(),
      startSmtpServer({ user: 'keyhold', password: PASSWORD, hideStartTls: true }),
      startSmtpServer({ reject: true }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), authed?.close(), rejecting?.close()]);
  });

  it('delivers a rendered mail in English and in German: subject, text, HTML, the link, values escaped', async () => {
    const mailer = smtpMailer(settingsFor(plain.env));
    try {
      expect(mailer.configured).toBe(true);
      const link = 'https://login.example.com/ui/login/password/reset?code=ABCD';
      await mailer.send(render(PASSWORD_RESET, 'en', 'ada@example.com', { name: 'Ada <b>Lovelace</b>', link, minutes: '60' }));
      await mailer.send(render(PASSWORD_RESET, 'de', 'bert@example.com', { name: 'Bert', link, minutes: '60' }));
      const en = await plain.next({ to: 'ada@example.com' });
      expect(en.from).toBe('login@keyhold.test');
      expect(en.subject).toBe('Set a new password');
      expect(en.text).toContain('Hello Ada <b>Lovelace</b>,');
      expect(en.links).toEqual([link]);
      expect(en.html).toContain('Ada &lt;b&gt;Lovelace&lt;/b&gt;');
      expect(en.html).not.toContain('<b>Lovelace');
      expect(en.html).toContain(`href="${link}"`);
      expect(en.lang).toBe('en');
      const de = await plain.next({ to: 'bert@example.com' });
      expect(de.subject).toBe('Neues Passwort festlegen');
      expect(de.text).toContain('Hallo Bert,');
      expect(de.lang).toBe('de');
      expect(de.links).toEqual([link]);
    } finally {
      mailer.close();
    }
  });

  it('keeps line breaks out of the subject and quotes in attribute values', async () => {
    const mail = render(VERIFY_EMAIL, 'en', 'x@example.com', { name: 'a"b', code: 'K7QP-MX2R', link: 'https://login.example.com/v?c="x"', minutes: '60' });
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).toContain('href="https://login.example.com/v?c=&quot;x&quot;"');
    expect(mail.html).toContain('a&quot;b');
  });

  it('authenticates as the URL\'s user with the password from KEYHOLD_SMTP_PASSWORD_FILE', async () => {
    const settings = settingsFor(
      { KEYHOLD_SMTP_URL: `smtp://keyhold@127.0.0.1:${authed.port}`, KEYHOLD_SMTP_PASSWORD_FILE: '/run/secrets/smtp', KEYHOLD_SMTP_FROM: 'login@keyhold.test', KEYHOLD_SMTP_TLS: 'none' },
      { '/run/secrets/smtp': `${PASSWORD}\n` },
    );
    expect(settings.password).toBe(PASSWORD);
    const mailer = smtpMailer(settings);
    try {
      await mailer.send({ to: 'c@example.com', subject: 's', text: 't', html: '<p>t</p>' });
      expect((await authed.next({ to: 'c@example.com' })).user).toBe('keyhold');
    } finally {
      mailer.close();
    }
    const wrong = smtpMailer({ ...settings, password: 'not-the-password-9' });
    try {
      const err = await wrong.send({ to: 'd@example.com', subject: 's', text: 't', html: '<p>t</p>' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MailUnavailable);
      expect((err as Error).message).toBe('mail server unavailable: EAUTH (server replied 535)');
      expect(String((err as Error).message)).not.toContain('not-the-password');
    } finally {
      wrong.close();
    }
  });

  it('answers MailUnavailable with the reply code when the server refuses the message', async () => {
    const mailer = smtpMailer(settingsFor(rejecting.env));
    try {
      const err = await mailer.send({ to: 'e@example.com', subject: 's', text: 't', html: '<p>t</p>' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MailUnavailable);
      expect((err as MailUnavailable).reason).toMatch(/\(server replied 550\)$/);
    } finally {
      mailer.close();
    }
  });

  it('with STARTTLS required, never falls back to plaintext when the server offers no STARTTLS', async () => {
    const settings: SmtpSettings = { host: '127.0.0.1', port: authed.port, user: 'keyhold', password: PASSWORD, from: 'login@keyhold.test', tls: 'starttls' };
    const mailer = smtpMailer(settings);
    const before = authed.all().length;
    try {
      const err = await mailer.send({ to: 'f@example.com', subject: 's', text: 't', html: '<p>t</p>' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MailUnavailable);
      expect((err as Error).message).not.toContain(PASSWORD);
      expect(authed.all().length).toBe(before);
    } finally {
      mailer.close();
    }
  });

  it('answers MailUnavailable quickly when nothing listens', async () => {
    const free = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const mailer = smtpMailer({ host: '127.0.0.1', port: free, from: 'login@keyhold.test', tls: 'none' });
    try {
      const started = Date.now();
      const err = await mailer.send({ to: 'g@example.com', subject: 's', text: 't', html: '<p>t</p>' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MailUnavailable);
      expect((err as MailUnavailable).reason).toMatch(/^E(SOCKET|CONNECTION)$/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      mailer.close();
    }
  });

  it('without KEYHOLD_SMTP_URL nothing is configured and every send refuses naming the setting', async () => {
    expect(loadConfig({ KEYHOLD_PORT: '0' }).smtp).toBeUndefined();
    expect(NO_MAIL.configured).toBe(false);
    await expect(NO_MAIL.send({ to: 'h@example.com', subject: 's', text: 't', html: '' })).rejects.toThrow(/KEYHOLD_SMTP_URL/);
  });
});

describe('KEYHOLD_SMTP_* settings', () => {
  const refused = (env: Record<string, string>) => {
    try {
      loadConfig({ KEYHOLD_PORT: '0', ...env });
    } catch (e) {
      if (e instanceof ConfigError) return `${e.variable}: ${e.problem}`;
      throw e;
    }
    return 'accepted';
  };
  const from = { KEYHOLD_SMTP_FROM: 'Keyhold <login@example.com>' };

  it.each([
    [{ KEYHOLD_SMTP_URL: 'smtp://u:hunter2@mail.example.com', ...from }, /^KEYHOLD_SMTP_URL: holds a password: .*KEYHOLD_SMTP_PASSWORD_FILE/],
    [{ KEYHOLD_SMTP_URL: 'http://mail.example.com', ...from }, /^KEYHOLD_SMTP_URL: must start with smtp:\/\/ or smtps:\/\//],
    [{ KEYHOLD_SMTP_URL: 'smtp://mail.example.com/x', ...from }, /^KEYHOLD_SMTP_URL: must be only/],
    [{ KEYHOLD_SMTP_URL: 'smtp://mail.example.com' }, /^KEYHOLD_SMTP_FROM: is required/],
    [{ KEYHOLD_SMTP_URL: 'smtp://mail.example.com', KEYHOLD_SMTP_FROM: 'nobody' }, /^KEYHOLD_SMTP_FROM: "nobody" is not an address/],
    [{ KEYHOLD_SMTP_URL: 'smtp://mail.example.com', ...from, KEYHOLD_SMTP_TLS: 'none' }, /^KEYHOLD_SMTP_TLS: none \(plaintext\) is only for a relay on this host/],
    [{ KEYHOLD_SMTP_URL: 'smtp://mail.example.com', ...from, KEYHOLD_SMTP_TLS: 'implicit' }, /^KEYHOLD_SMTP_TLS: implicit TLS goes with smtps:\/\//],
    [{ KEYHOLD_SMTP_URL: 'smtps://mail.example.com', ...from, KEYHOLD_SMTP_TLS: 'starttls' }, /^KEYHOLD_SMTP_TLS: starttls goes with smtp:\/\//],
    [{ KEYHOLD_SMTP_URL: 'smtp://mail.example.com', ...from, KEYHOLD_SMTP_TLS: 'maybe' }, /^KEYHOLD_SMTP_TLS: must be starttls, implicit or none/],
    [{ KEYHOLD_SMTP_URL: 'smtp://mail.example.com', ...from, KEYHOLD_SMTP_PASSWORD: 'pw-123456' }, /^KEYHOLD_SMTP_PASSWORD: is set but KEYHOLD_SMTP_URL names no user/],
    [{ KEYHOLD_SMTP_FROM: 'login@example.com' }, /^KEYHOLD_SMTP_FROM: is set but KEYHOLD_SMTP_URL is not/],
  ])('refuses %j', (env, reason) => {
    const answer = refused(env as Record<string, string>);
    expect(answer).toMatch(reason);
    expect(answer).not.toContain('hunter2');
  });

  it('takes the TLS mode and port from the scheme', () => {
    expect(loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_SMTP_URL: 'smtp://relay@mail.example.com', ...from }).smtp).toEqual({
      host: 'mail.example.com', port: 587, user: 'relay', password: undefined, from: from.KEYHOLD_SMTP_FROM, tls: 'starttls',
    });
    expect(loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_SMTP_URL: 'smtps://mail.example.com', ...from }).smtp).toMatchObject({ port: 465, tls: 'implicit' });
    expect(loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_SMTP_URL: 'smtp://[::1]:2525', ...from, KEYHOLD_SMTP_TLS: 'none' }).smtp).toMatchObject({ host: '::1', port: 2525, tls: 'none' });
  });

  it('keyhold config shows the server and never the password', () => {
    const { text } = configReport({ KEYHOLD_PORT: '0', KEYHOLD_SMTP_URL: 'smtp://relay@mail.example.com', KEYHOLD_SMTP_PASSWORD: 'pw-visible-nowhere', ...from });
    expect(text).toMatch(/^KEYHOLD_SMTP_URL\s+smtp:\/\/relay@mail\.example\.com:587\s+environment$/m);
    expect(text).toMatch(/^KEYHOLD_SMTP_PASSWORD\s+\(set, redacted\)\s+environment$/m);
    expect(text).not.toContain('pw-visible-nowhere');
  });
});
