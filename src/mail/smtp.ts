// The SMTP adapter: the one Mailer that talks to a server, through nodemailer.
// Pooled (a burst of resets reuses a few connections instead of opening one per
// mail), every wait bounded (a mail server that hangs answers MailUnavailable
// within seconds, never holds a request open), and TLS as configured: STARTTLS
// required on smtp://, implicit on smtps://, plaintext only to a loopback relay
// (config.ts refuses it elsewhere). Errors keep nodemailer's code and the
// server's reply code only: never the password, never the message.
//
// nodemailer is loaded at the first send, not at start-up: a process that
// sends no mail does not carry it (+14.6 MiB of RSS when imported into a bare
// Node; docs/performance.md, "Optional modules loaded on first use").
import type { Transporter } from 'nodemailer';
import { MailUnavailable, type Mailer, type OutgoingMail } from './mailer.js';

export type SmtpTls = 'starttls' | 'implicit' | 'none';

/** KEYHOLD_SMTP_*: where mail goes and as whom. */
export interface SmtpSettings {
  host: string;
  port: number;
  /** The user name from the URL, if any. */
  user?: string;
  /** KEYHOLD_SMTP_PASSWORD(_FILE); only with a user. */
  password?: string;
  /** The sender: `Keyhold <login@example.com>` or an address. */
  from: string;
  tls: SmtpTls;
}

/** Upper bounds of each wait (ms): connecting, the greeting, an idle socket. */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

/** Without KEYHOLD_SMTP_URL: every send refuses, `configured` says why beforehand. */
export const NO_MAIL: Mailer = {
  configured: false,
  send: () => Promise.reject(new MailUnavailable('no mail server configured (KEYHOLD_SMTP_URL)')),
};

export interface SmtpMailer extends Mailer {
  close(): void;
}

export function smtpMailer(settings: SmtpSettings): SmtpMailer {
  let transport: Promise<Transporter> | undefined;
  let closed = false;
  // A load that failed is tried again at the next send, not kept.
  const opened = () =>
    (transport ??= import('nodemailer').then(
      ({ default: nodemailer }) => open(nodemailer, settings),
      (e: unknown) => {
        transport = undefined;
        throw e;
      },
    ));
  return {
    configured: true,
    async send(mail: OutgoingMail): Promise<void> {
      if (closed) throw new MailUnavailable('the mail transport is closed');
      try {
        await (await opened()).sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      } catch (e) {
        throw new MailUnavailable(describe(e));
      }
    },
    close() {
      closed = true;
      void transport?.then((t) => t.close(), () => undefined);
    },
  };
}

/** The pooled transport to the configured server. */
function open(nodemailer: (typeof import('nodemailer'))['default'], settings: SmtpSettings): Transporter {
  return nodemailer.createTransport({
    pool: true,
    maxConnections: 3,
    host: settings.host,
    port: settings.port,
    secure: settings.tls === 'implicit',
    requireTLS: settings.tls === 'starttls',
    ignoreTLS: settings.tls === 'none',
    auth: settings.user ? { user: settings.user, pass: settings.password ?? '' } : undefined,
    ...SMTP_TIMEOUTS,
    // nodemailer's own logger would print the conversation (AUTH included): off.
    logger: false,
    debug: false,
  });
}

/** What went wrong, without anything the error may carry from the conversation. */
function describe(e: unknown): string {
  const err = e as { code?: unknown; responseCode?: unknown };
  const code = typeof err.code === 'string' && /^[A-Z_]{1,40}$/.test(err.code) ? err.code : 'SEND_FAILED';
  const reply = typeof err.responseCode === 'number' ? ` (server replied ${err.responseCode})` : '';
  return `${code}${reply}`;
}
