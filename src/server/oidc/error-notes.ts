// The OpenID Provider's refusals in Keyhold's request log: the OAuth error
// (`invalid_grant`…), its description and the client it concerned, on the
// request's one log line (requests.ts) — instead of a bare HTTP status. The
// library emits `<route>.error` for each (its documented events); a server
// error (`server_error`) is noted by its OAuth error alone — its cause is
// logged apart, with its stack (mount.ts). Every request the library found a
// client for, answered or refused, carries that client's id.
//
// The description is the library's own text (or Keyhold's, for JWT userinfo):
// it names parameters, never their values. Not its `error_detail`: that may
// quote what the client sent (a requested scope, a parser's message). Bounded and kept to printable
// ASCII all the same. The client id is the client the library found (a
// known client, authenticated or about to be), never a client_id as sent.
import type { IncomingMessage } from 'node:http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** What the request's log line says about an OAuth refusal. */
export interface OAuthErrorNote {
  /** Absent: the request was not refused; only its client is noted. */
  error?: string;
  description?: string;
  clientId?: string;
}

/** Notes an OAuth refusal on the record of the request it answered. */
export type NoteOAuthError = (req: IncomingMessage, note: OAuthErrorNote) => void;

/** Every error event of the routes Keyhold enables. */
const ERROR_EVENTS = [
  'authorization.error',
  'grant.error',
  'userinfo.error',
  'introspection.error',
  'revocation.error',
  'jwks.error',
  'discovery.error',
  'end_session.error',
  'end_session_confirm.error',
  'end_session_success.error',
  'device_authorization.error',
  'code_verification.error',
  'device_resume.error',
];

const MAX_DESCRIPTION = 200;

/** A description as it may be logged: printable ASCII, bounded. */
export const loggable = (text: unknown): string | undefined =>
  typeof text === 'string' && text ? text.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_DESCRIPTION) : undefined;

/** The client the library found for the request (a known one), if any. */
const clientOf = (ctx: Any): { clientId?: string } => {
  const clientId = ctx?.oidc?.client?.clientId;
  return typeof clientId === 'string' ? { clientId } : {};
};

export function noteOAuthErrors(provider: Any, note: NoteOAuthError): void {
  for (const name of ERROR_EVENTS) {
    provider.on(name, (ctx: Any, err: Any) => {
      if (!ctx?.req || typeof err?.error !== 'string') return;
      note(ctx.req, { error: err.error, description: loggable(err.error_description), ...clientOf(ctx) });
    });
  }
  // The library's own failure: its description is a fixed "oops", its cause in the error line.
  provider.on('server_error', (ctx: Any) => {
    if (ctx?.req) note(ctx.req, { error: 'server_error', ...clientOf(ctx) });
  });
  // Answered or refused, the client it was for (after the route ran: the library sets it along the way).
  provider.use(async (ctx: Any, next: () => Promise<void>) => {
    try {
      await next();
    } finally {
      const client = clientOf(ctx);
      if (client.clientId !== undefined && ctx.req) note(ctx.req, client);
    }
  });
}
