// Outermost interceptor: whatever a handler or an inner interceptor throws
// leaves as one ConnectError with Keyhold's details, in the caller's language.
// Server-side failures are logged here, once, without request bodies.
import type { Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { toConnectError } from '../../api/errors.js';
import { negotiateLanguage } from '../../domain/i18n/language.js';

export function errorInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (thrown) {
      const { error, internal, logged = thrown } = toConnectError(thrown, negotiateLanguage(req.header.get('accept-language')));
      if (internal) {
        log.error({ err: logged, rpc: req.method.name }, 'request failed on the server side');
      }
      throw error;
    }
  };
}
