// A real SMTP server process for a test file (smtp-server.mjs), and what
// arrived at it, parsed by mailparser: `await smtp.next({ to })` waits for the
// next message to that address and hands over subject, text, html and links.
// `env` is the Keyhold configuration that sends to it (plaintext to loopback).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { simpleParser } from 'mailparser';
import { repoRoot } from './keyhold.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every http(s) URL in the text part, in order. */
  links: string[];
  /** The Content-Language / html lang, when the mail says. */
  lang?: string;
  /** The user the sender authenticated as, if any. */
  user: string | null;
  raw: string;
}

export interface TestSmtpServer {
  port: number;
  /** KEYHOLD_SMTP_* for a Keyhold sending here. */
  env: Record<string, string>;
  /** The next message (not yet handed out) to `to`, waiting up to `timeoutMs`. */
  next(filter?: { to?: string; timeoutMs?: number }): Promise<ReceivedMail>;
  /** Everything received so far (handed out or not). */
  all(): ReceivedMail[];
  close(): Promise<void>;
}

export interface SmtpServerOptions {
  user?: string;
  password?: string;
  hideStartTls?: boolean;
  /** Answer 550 to every message. */
  reject?: boolean;
}

export async function startSmtpServer(opts: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const child: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'test/support/smtp-server.mjs'), JSON.stringify(opts)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const received: ReceivedMail[] = [];
  const handedOut = new Set<ReceivedMail>();
  let wake: (() => void)[] = [];
  const lines = createInterface({ input: child.stdout! });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`smtp server exited (${code}): ${stderr}`)));
    lines.on('line', async (line) => {
      const listening = /^listening (\d+)$/.exec(line);
      if (listening) return resolve(Number(listening[1]));
      const { from, to, raw, user } = JSON.parse(line) as { from: string; to: string[]; raw: string; user: string | null };
      const source = Buffer.from(raw, 'base64');
      const parsed = await simpleParser(source);
      const text = parsed.text ?? '';
      const html = typeof parsed.html === 'string' ? parsed.html : '';
      received.push({
        from,
        to,
        subject: parsed.subject ?? '',
        text,
        html,
        links: text.match(/https?:\/\/[^\s<>"]+/g) ?? [],
        lang: /<html lang="([^"]+)"/.exec(html)?.[1],
        user,
        raw: source.toString('utf8'),
      });
      const waiting = wake;
      wake = [];
      for (const w of waiting) w();
    });
  });
  const matches = (m: ReceivedMail, to?: string) => !handedOut.has(m) && (!to || m.to.some((a) => a.toLowerCase() === to.toLowerCase()));
  return {
    port,
    env: { KEYHOLD_SMTP_URL: `smtp://127.0.0.1:${port}`, KEYHOLD_SMTP_FROM: 'Keyhold <login@keyhold.test>', KEYHOLD_SMTP_TLS: 'none' },
    async next({ to, timeoutMs = 10_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find((m) => matches(m, to));
        if (found) {
          handedOut.add(found);
          return found;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail${to ? ` to ${to}` : ''} within ${timeoutMs} ms (${received.length} received)`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    all: () => [...received],
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
