// The OpenID Provider's answer while the database cannot answer (down, or past
// its wait bounds: store/wait-bounds.ts): the protocols' own "temporarily
// unavailable", never a 500. The library turns any error it does not know into
// server_error (500) and, at the authorization endpoint, a page instead of a
// redirect; an OIDCProviderError it shows as it is. So the provider's ports
// (its state store, the read model, the login's budgets) speak its language:
// a store failure leaves them as ProviderUnavailable — HTTP 503
// `temporarily_unavailable` on JSON endpoints, `error=temporarily_unavailable`
// to a validated redirect_uri at the authorization endpoint (RFC 6749 4.1.2.1),
// a 503 page where it cannot redirect — and mount.ts adds Retry-After to every
// 503 it sends. Each failure is logged through the repeated-error log (one line
// per interval with a count), with the driver's code and message only.
import { errors } from 'oidc-provider';
import { DatabaseUnavailable, StorageUnavailable, databaseUnavailable, isStorageRefusal, isUnavailable, storageUnavailable } from '../../store/errors.js';

/** Retry-After of every 503 of the OpenID Provider and the login pages: the API's DATABASE_UNAVAILABLE says the same. */
export const RETRY_AFTER_SECONDS = 1;

export const UNAVAILABLE_DESCRIPTION = 'the server cannot reach its database right now; retry shortly';

export class ProviderUnavailable extends errors.OIDCProviderError {
  constructor() {
    super(503, 'temporarily_unavailable');
    // The library hides 5xx errors as server_error; this one is the answer.
    this.expose = true;
    Object.assign(this, { error_description: UNAVAILABLE_DESCRIPTION });
  }
}

/** Whether `err` means the database or its storage cannot answer now (whoever wrapped it). */
export function isStoreUnavailable(err: unknown): boolean {
  return err instanceof ProviderUnavailable || err instanceof DatabaseUnavailable || err instanceof StorageUnavailable || isUnavailable(err) || isStorageRefusal(err);
}

/** What is logged for a store failure: its code and message, never the statement or its parameters. */
export function loggableStoreError(err: unknown): Error {
  return isStorageRefusal(err) ? storageUnavailable(err) : databaseUnavailable(err);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (...args: any[]) => unknown;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/**
 * `ports` (an object of functions, or one function) whose store failures,
 * thrown or rejected, become ProviderUnavailable after `note` heard them;
 * every other outcome passes through unchanged.
 */
export function speakingProvider<T extends object>(ports: T, note: (err: Error) => void): T {
  const translate = (err: unknown): unknown => {
    if (!isStoreUnavailable(err) || err instanceof ProviderUnavailable) return err;
    note(loggableStoreError(err));
    return new ProviderUnavailable();
  };
  const call = (fn: Fn, self: unknown, args: unknown[]): unknown => {
    let result: unknown;
    try {
      result = fn.apply(self, args);
    } catch (err) {
      throw translate(err);
    }
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
      return Promise.resolve(result).catch((err: unknown) => {
        throw translate(err);
      });
    }
    return result;
  };
  if (typeof ports === 'function') return ((...args: unknown[]) => call(ports as Fn, undefined, args)) as T;
  return new Proxy(ports, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (...args: unknown[]) => call(value as Fn, target, args) : value;
    },
  });
}

/**
 * The provider's outermost middleware (mount.ts): Retry-After on every 503, and
 * the answer for a store failure that comes after a route's own error handling
 * (the library saves the browser's session last) — which Koa would answer as
 * plain text without Retry-After.
 */
export function unavailableAnswers(renderError: (ctx: Any, out: { error: string; error_description?: string }, err: unknown) => Promise<void>) {
  return async (ctx: Any, next: () => Promise<void>): Promise<void> => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof ProviderUnavailable)) throw err;
      const out = { error: 'temporarily_unavailable', error_description: UNAVAILABLE_DESCRIPTION };
      ctx.status = 503;
      if (ctx.accepts('json', 'html') === 'html') await renderError(ctx, out, err);
      else ctx.body = out;
    }
    if (ctx.status === 503) ctx.set('retry-after', String(RETRY_AFTER_SECONDS));
  };
}
