// The one way Keyhold sends mail. A flow renders its message (src/mail/templates/,
// one file per kind, English and German, text and HTML, every link from
// KEYHOLD_ISSUER) and hands it here; the SMTP adapter is the only implementation
// that talks to a server. Without SMTP configured `configured` is false and a
// flow that needs mail says so plainly (the console offers the link instead).

/** One rendered message for one recipient. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  readonly configured: boolean;
  /** Resolves once the server accepted the message; rejects with MailUnavailable otherwise. */
  send(mail: OutgoingMail): Promise<void>;
}

/** The mail server did not take the message (down, refused, timed out): a retryable fault. */
export class MailUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`mail server unavailable: ${reason}`);
    this.name = 'MailUnavailable';
  }
}
