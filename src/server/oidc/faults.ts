// A database fault met by the OpenID Provider's endpoints is answered as one:
// 503 `temporarily_unavailable` (RFC 6749's code for it) with Retry-After,
// not the library's 500 `server_error`. Every database call the library makes
// goes through the adapter or findAccount (configuration.ts), so those two
// turn the store's unavailable and storage errors into this answer; anything
// else stays a 500, which is a bug.
import { errors } from 'oidc-provider';
import { DatabaseUnavailable, isStorageRefusal, isUnavailable, StorageUnavailable } from '../../store/errors.js';
import { secretTransport } from './extensions.js';

/** The database is out or refuses writes: the client may try again (503). */
export class ProviderUnavailable extends errors.OIDCProviderError {
  error_description = 'the database is unavailable: try again shortly';
  constructor() {
    super(503, 'temporarily_unavailable');
    // The library shows the error code only for errors it marks as exposed (below 500 by default).
    this.expose = true;
    secretTransport.getStore()?.setHeader?.('retry-after', '1');
  }
}

const isFault = (err: unknown) => err instanceof DatabaseUnavailable || err instanceof StorageUnavailable || isStorageRefusal(err) || isUnavailable(err);

/** Runs `call`, answering a database fault it meets with ProviderUnavailable. */
export async function orUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw isFault(err) ? new ProviderUnavailable() : err;
  }
}
