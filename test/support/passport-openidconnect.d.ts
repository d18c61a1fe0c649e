// passport-openidconnect ships no type declarations: the part of it the
// conformance tests drive (test/server/oidc/conformance-clients.test.ts).
declare module 'passport-openidconnect' {
  import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';

  interface StrategyOptions {
    issuer: string;
    authorizationURL: string;
    tokenURL: string;
    userInfoURL?: string;
    clientID: string;
    clientSecret?: string;
    callbackURL?: string;
    scope?: string | string[];
    nonce?: boolean;
  }

  /** node-oauth's OAuth2 client; its HTTP library is chosen per URL (swappable). */
  interface OAuth2 {
    _chooseHttpLibrary(url: unknown): { request(options: RequestOptions, callback?: (res: IncomingMessage) => void): ClientRequest };
  }

  /** What a strategy ends a request with; passport's middleware sets these on a copy of the strategy. */
  interface Actions {
    redirect(url: string): void;
    success(user: unknown, info?: unknown): void;
    fail(challenge?: unknown, status?: number): void;
    error(err: unknown): void;
    pass(): void;
  }

  class Strategy {
    constructor(options: StrategyOptions, verify: (issuer: string, profile: Record<string, unknown>, context: unknown, idToken: string, done: (err: unknown, user?: unknown) => void) => void);
    name: string;
    _oauth2: OAuth2;
    authenticate(this: Strategy & Actions, req: { query?: Record<string, string>; session: Record<string, unknown> }, options?: Record<string, unknown>): void;
  }
  export = Strategy;
}
